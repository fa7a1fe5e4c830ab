import statistics as st, sys
d={}
for l in open(sys.argv[1]):
    r,k,t=l.split(); d.setdefault(int(k),[]).append((int(r),float(t)))
names=sys.argv[2:]
base=[t for r,t in d[0]]
for k,v in sorted(d.items()):
    ts=[t for r,t in v]
    # per-round ratio vs k=0
    rat=[t/b for (r,t),b in zip(v,base)]
    print("%-12s median %7.2f ms  min %7.2f ms  ratio-to-first (per round median) %.3f" % (names[k] if k < len(names) else k, st.median(ts)*1e3, min(ts)*1e3, st.median(rat)))
