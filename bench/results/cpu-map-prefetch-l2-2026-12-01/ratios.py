import re,sys,statistics
t={}
rnd=0
for l in open(sys.argv[1]):
    m=re.match(r'== round (\d+)',l)
    if m: rnd=int(m.group(1)); continue
    m=re.match(r'(\S+)\s+k(\d+)_(v\d)\s*: pass median ([\d.]+)',l)
    if m: t[(m.group(2),m.group(3),rnd)]=float(m.group(4))
probs=sorted({k[0] for k in t}); vs=sorted({k[1] for k in t}); rs=sorted({k[2] for k in t})
for p in probs:
    for v in vs:
        if v=='v0': continue
        r=[t[(p,v,x)]/t[(p,'v0',x)] for x in rs]
        print(p,v,' '.join('%.3f'%x for x in r),' median %.3f'%statistics.median(r))
