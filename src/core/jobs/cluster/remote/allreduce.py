import signal, sys, time
def say(*w):
    sys.stdout.write('gpu-rental-preflight ' + ' '.join(str(x) for x in w) + '\n')
    sys.stdout.flush()
def word(e):
    if 'timed out' in str(e).lower() or 'timeout' in str(e).lower():
        return 'timeout'
    return ''.join(c for c in type(e).__name__.lower() if c.isalnum())[:32] or 'error'
mode, limit = sys.argv[2], int(sys.argv[3])
signal.alarm(limit)
try:
    import torch
    import torch.distributed as dist
    ok = dist.is_available()
except Exception:
    ok = False
if not ok:
    say('no-torch')
    sys.exit(0)
if mode == 'torch':
    say('torch', 'nccl' if torch.cuda.is_available() and dist.is_nccl_available() else 'gloo')
    sys.exit(0)
import datetime
rank, world, addr, port, backend = int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], int(sys.argv[7]), sys.argv[8]
size, warm, iters, wait = int(sys.argv[9]), int(sys.argv[10]), int(sys.argv[11]), int(sys.argv[12])
try:
    dev = torch.device('cpu')
    if backend == 'nccl':
        torch.cuda.set_device(0)
        dev = torch.device('cuda', 0)
    def sync():
        if backend == 'nccl':
            torch.cuda.synchronize()
    dist.init_process_group(backend, init_method='tcp://%s:%d' % (addr, port), rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=wait))
    t = torch.ones(size // 4, dtype=torch.float32, device=dev)
    for _ in range(warm):
        dist.all_reduce(t)
    sync()
    t0 = time.perf_counter()
    for _ in range(iters):
        dist.all_reduce(t)
    sync()
    took = torch.tensor([time.perf_counter() - t0], dtype=torch.float64, device=dev)
    dist.all_reduce(took, op=dist.ReduceOp.MAX)
    say('allreduce', size, iters, '%.6f' % took.item(), backend)
    dist.destroy_process_group()
except Exception as e:
    say('allreduce-failed', word(e))
