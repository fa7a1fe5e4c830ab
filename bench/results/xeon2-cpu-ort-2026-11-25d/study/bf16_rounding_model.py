# bf16 rounding model of the cpu preset's norm problems: both GEMM operands rounded to bf16 (nearest even),
# exact accumulation, the problem's graph in float64; counts elements outside atol + rtol|ref| (0.01, 0.01).
# Variants: bf16, bf16 with A's columns centred (c), 2xbf16 (A split), 2xbf16 centred, 3xbf16.
# usage: PYTHON(numpy, torch) bf16_rounding_model.py 30,33,41,62,88 SEEDS
import numpy as np, sys
from math import erf
def bf16(a):
    a=np.ascontiguousarray(a,dtype=np.float32); u=a.view(np.uint32).astype(np.uint64)
    r=((u+0x7FFF+((u>>16)&1))&0xFFFF0000).astype(np.uint32); return r.view(np.float32)
def kaiming(rng,shape,fan): b=1/np.sqrt(fan); return rng.uniform(-b,b,shape).astype(np.float32)
def gn(h,G,eps=1e-5):
    B,N=h.shape; g=h.reshape(B,G,N//G); m=g.mean(-1,keepdims=True); v=g.var(-1,keepdims=True); return ((g-m)/np.sqrt(v+eps)).reshape(B,N)
def bn(h,eps=1e-5):
    m=h.mean(0,keepdims=True); v=h.var(0,keepdims=True); return (h-m)/np.sqrt(v+eps)
sig=lambda z:1/(1+np.exp(-z))
import torch
verf=lambda z: torch.erf(torch.from_numpy(np.ascontiguousarray(z))).numpy()
P={
 '30': lambda h,p: np.clip(gn(h,16),-2,2),
 '33': lambda h,p: bn(h*p['scale']),
 '41': lambda h,p: np.maximum(0.5*(bn(h))*(1+verf(bn(h)/np.sqrt(2))),0),
 '62': lambda h,p: 2*np.where(gn(h,512)>0,gn(h,512),0.01*gn(h,512)),
 '88': lambda h,p: (lambda z:(lambda t: t*sig(t))(z*sig(z)*p['w']))(gn(h,256)),
}
dims={'41':(2048,1024,1024)}
def gemm(x,W,mode,c):
    x64=x.astype(np.float64); W64=W.astype(np.float64)
    if mode=='fp64': return x64@W64.T
    xc=(x-c).astype(np.float32) if c is not None else x
    ah=bf16(xc); al=bf16(xc-ah); bh=bf16(W); bl=bf16(W-bh)
    ah,al,bh,bl=[t.astype(np.float64) for t in (ah,al,bh,bl)]
    if mode=='bf16': r=ah@bh.T
    elif mode=='2x': r=(ah+al)@bh.T
    elif mode=='3x': r=ah@bh.T+al@bh.T+ah@bl.T
    if c is not None: r=r+(c.astype(np.float64)@W64.T)[None,:]
    return r
for prob in sys.argv[1].split(','):
  B,K,N=dims.get(prob,(512,2048,2048))
  for seed in range(int(sys.argv[2])):
    rng=np.random.default_rng(seed)
    x=rng.uniform(0,1,(B,K)).astype(np.float32); W=kaiming(rng,(N,K),K); b=kaiming(rng,(N,),K)
    p={'scale':rng.normal(0,1,N).astype(np.float32),'w':rng.normal(0,1,N).astype(np.float32)}
    ref=P[prob](x.astype(np.float64)@W.astype(np.float64).T+b,p)
    cm=x.mean(0)
    out=[]
    for mode,c in [('bf16',None),('bf16',cm),('2x',None),('2x',cm),('3x',None)]:
        y=P[prob](gemm(x,W,mode,c)+b,p); d=np.abs(y-ref); bad=int((d>0.01+0.01*np.abs(ref)).sum())
        out.append(f"{mode}{'c' if c is not None else ''}: {bad:6d} bad, max {d.max():.4f}, rel_l2 {np.linalg.norm(y-ref)/np.linalg.norm(ref):.1e}")
    print(prob,seed,' | '.join(out),flush=True)
