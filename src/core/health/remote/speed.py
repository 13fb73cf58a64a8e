# The health check's download test when the machine has neither curl nor wget (probe.ts):
# argv: the URL, the seconds and the bytes it may take. Prints one line the reader knows.
import sys,time,urllib.request
url,secs,most=sys.argv[1],int(sys.argv[2]),int(sys.argv[3])
t=time.time();n=0;c=0
try:
 r=urllib.request.urlopen(url,timeout=secs);c=r.status
 while n<most and time.time()-t<secs:
  b=r.read(min(65536,most-n))
  if not b: break
  n+=len(b)
except Exception as e:
 if n==0:
  print("python error "+type(e).__name__+": "+str(e)[:200]);sys.exit(7)
print("python %d %d %.3f"%(c,n,time.time()-t))
