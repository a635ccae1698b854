#!/usr/bin/env python3
"""Prints each cycle between object files of a build tree (strongly connected components of the graph
object -> objects defining the symbols it uses, from nm). Usage: object_cycles.py BUILD/obj; exit 1 if any."""
import subprocess,sys,glob,os,collections
objs=[o for o in glob.glob(sys.argv[1]+'/**/*.o',recursive=True)]
defs={};uses={}
for o in objs:
    out=subprocess.run(['nm',o],capture_output=True,text=True).stdout
    d=set();u=set()
    for l in out.splitlines():
        p=l.split()
        if len(p)==3 and p[1] in 'TDBRCVW' : d.add(p[2])
        elif len(p)==2 and p[0]=='U': u.add(p[1])
    defs[o]=d;uses[o]=u
owner={}
for o,d in defs.items():
    for s in d: owner.setdefault(s,o)
g=collections.defaultdict(set)
for o,u in uses.items():
    for s in u:
        if s in owner and owner[s]!=o: g[o].add(owner[s])
# tarjan
idx={};low={};st=[];on=set();res=[];c=[0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v]=low[v]=c[0];c[0]+=1;st.append(v);on.add(v)
    for w in g[v]:
        if w not in idx: sc(w);low[v]=min(low[v],low[w])
        elif w in on: low[v]=min(low[v],idx[w])
    if low[v]==idx[v]:
        comp=[]
        while True:
            w=st.pop();on.discard(w);comp.append(w)
            if w==v:break
        if len(comp)>1: res.append(comp)
for v in list(defs):
    if v not in idx: sc(v)
for r in res: print(" <-> ".join(sorted(os.path.relpath(x,sys.argv[1]) for x in r)))
sys.exit(1 if res else 0)
