import errno, signal, socket, sys, threading, time
M = b'gpu-rental-preflight'
def say(*w):
    sys.stdout.write('gpu-rental-preflight ' + ' '.join(str(x) for x in w) + '\n')
    sys.stdout.flush()
def why(e):
    if isinstance(e, socket.timeout):
        return 'timeout'
    return errno.errorcode.get(getattr(e, 'errno', None) or 0, 'error').lower()
def listener(addr, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(64)
    s.settimeout(0.5)
    return s
def line(c):
    b = b''
    while not b.endswith(b'\n') and len(b) < 64:
        d = c.recv(1)
        if not d:
            break
        b += d
    return b.split()
def dial(addr, port, until):
    last = 'timeout'
    while time.time() < until:
        try:
            return socket.create_connection((addr, port), max(0.5, min(2.0, until - time.time()))), None
        except Exception as e:
            last = why(e)
            time.sleep(0.2)
    return None, last
def hello(n):
    return M + b' ' + str(n).encode() + b'\n'
mode = sys.argv[1]
if mode == 'reach':
    rank, port, wait, addrs = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5:]
    signal.alarm(int(wait) + 15)
    until = time.time() + wait
    peers = [k for k in range(len(addrs)) if k != rank]
    heard, results = set(), {}
    try:
        srv = listener(addrs[rank], port)
    except Exception as e:
        srv = None
        say('listen-failed', why(e))
    def serve():
        while len(heard) < len(peers) and time.time() < until + 2:
            try:
                c = srv.accept()[0]
            except Exception:
                continue
            try:
                c.settimeout(3)
                w = line(c)
                if len(w) == 2 and w[0] == M and w[1].isdigit():
                    c.sendall(hello(rank))
                    heard.add(int(w[1]))
            except Exception:
                pass
            c.close()
    def reach(k):
        last = 'timeout'
        while time.time() < until:
            c, e = dial(addrs[k], port, until)
            if c is None:
                last = e
                break
            try:
                c.settimeout(3)
                c.sendall(hello(rank))
                if line(c) == [M, str(k).encode()]:
                    results[k] = 'ok'
                    return
                last = 'wrong-answer'
            except Exception as e2:
                last = why(e2)
            finally:
                c.close()
            time.sleep(0.2)
        results[k] = last
    threads = [threading.Thread(target=reach, args=(k,)) for k in peers]
    if srv is not None:
        threads.append(threading.Thread(target=serve))
    for t in threads:
        t.daemon = True
        t.start()
    for t in threads:
        t.join(max(0.0, until + 3 - time.time()))
    for k in peers:
        say('reach', k, results.get(k, 'timeout'))
    for k in sorted(heard):
        say('heard', k)
elif mode == 'recv':
    port, wait, peer, addr = int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    signal.alarm(int(wait) * 2 + 15)
    until = time.time() + wait
    try:
        srv = listener(addr, port)
    except Exception as e:
        say('listen-failed', why(e))
        sys.exit(0)
    c = None
    while c is None and time.time() < until:
        try:
            c = srv.accept()[0]
            c.settimeout(3)
            if line(c) != [M, str(peer).encode()]:
                c.close()
                c = None
        except Exception:
            c = None
    if c is None:
        say('recv-failed', 'timeout')
        sys.exit(0)
    c.settimeout(wait)
    c.sendall(b'go\n')
    t0, n, buf = time.perf_counter(), 0, bytearray(1 << 20)
    while True:
        r = c.recv_into(buf)
        if not r:
            break
        n += r
    say('recv', n, '%.6f' % (time.perf_counter() - t0))
    c.close()
elif mode == 'send':
    port, wait, rank, addr = int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    total, limit = int(sys.argv[6]), float(sys.argv[7])
    signal.alarm(int(wait + limit) + 15)
    until = time.time() + wait
    c = None
    while c is None:
        c, e = dial(addr, port, until)
        if c is None:
            say('send-failed', e)
            sys.exit(0)
        try:
            c.settimeout(5)
            c.sendall(hello(rank))
            if line(c) != [b'go']:
                raise OSError(0, 'no go')
        except Exception:
            c.close()
            c = None
            time.sleep(0.2)
    c.settimeout(limit + 10)
    chunk, sent, stop = b'\0' * (1 << 20), 0, time.time() + limit
    while sent < total and time.time() < stop:
        c.sendall(chunk)
        sent += len(chunk)
    c.shutdown(socket.SHUT_WR)
    c.recv(1)
    say('sent', sent)
    c.close()
