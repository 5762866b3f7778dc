#!/usr/bin/env python3
"""Abuse of a running `dedup serve` (issue 34's safe defaults), from outside, on plain sockets.

Usage: bench/serve-abuse.py PORT PID RECORD_FILE
  PORT         the service's port on 127.0.0.1 (started without a token: checks only)
  PID          the service's process id (its RSS is sampled every 0.2 s)
  RECORD_FILE  JSON lines of records of the served table (the first is checked)

Each phase sends its requests at once from one thread each while /v1/health is asked every 0.2 s,
and prints the (status, problem type) counts, health's answers and latencies and the peak RSS.
"""
import json, socket, statistics, sys, threading, time
from concurrent.futures import ThreadPoolExecutor

PORT, PID = int(sys.argv[1]), int(sys.argv[2])
RECORD = open(sys.argv[3], encoding='utf-8').readline().strip().encode()


def rss_mb():
    return int(open(f'/proc/{PID}/status').read().split('VmRSS:')[1].split()[0]) // 1024


def exchange(head, body=b'', trickle=0):
    """Sends head and body (then a byte a second, trickle times); the (status, problem type)."""
    s = socket.create_connection(('127.0.0.1', PORT))
    s.settimeout(60)
    try:
        try:
            s.sendall(head + body)
            for _ in range(trickle):
                time.sleep(1)
                s.send(b' ')
        except OSError:
            pass  # refused while sending: read what was answered
        data = b''
        try:
            while len(data) < 4096:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        except OSError as e:
            if not data:
                return type(e).__name__, None
        line = data.split(b'\r\n', 1)[0].decode(errors='replace')
        try:
            kind = json.loads(data.split(b'\r\n\r\n', 1)[-1]).get('type')
        except (ValueError, AttributeError):
            kind = None
        return (line.split(' ')[1] if ' ' in line else 'closed'), kind
    finally:
        s.close()


def post(length, content_type='application/json', host='localhost'):
    return (f'POST /v1/check HTTP/1.1\r\nHost: {host}\r\nContent-Type: {content_type}\r\n'
            f'Content-Length: {length}\r\nConnection: close\r\n\r\n').encode()


def phase(name, jobs):
    stop, latencies, failed, peak = threading.Event(), [], [0], [rss_mb()]

    def health():
        while not stop.is_set():
            start = time.time()
            status, _ = exchange(b'GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
            latencies.append((time.time() - start) * 1000)
            failed[0] += status != '200'
            peak[0] = max(peak[0], rss_mb())
            time.sleep(0.2)

    watcher = threading.Thread(target=health)
    watcher.start()
    start = time.time()
    with ThreadPoolExecutor(len(jobs)) as pool:
        answers = list(pool.map(lambda job: exchange(*job), jobs))
    seconds = time.time() - start
    stop.set()
    watcher.join()
    counts = {}
    for answer in answers:
        counts[answer] = counts.get(answer, 0) + 1
    print(f'{name}: {len(answers)} in {seconds:.1f} s, (status, type): {counts}; health '
          f'{len(latencies) - failed[0]} ok / {failed[0]} failed, p50 {statistics.median(latencies):.1f} ms, '
          f'max {max(latencies):.1f} ms; RSS peak {peak[0]} MB', flush=True)


big = ('[' + ','.join(['{}'] * ((16 << 20) // 3 - 10)) + ']').encode()
chunked = b''.join(b'%x\r\n%s\r\n' % (len(big[i:i + 65536]), big[i:i + 65536])
                   for i in range(0, len(big), 65536)) + b'0\r\n\r\n'
phase('1,000 concurrent connections, one check each', [(post(len(RECORD)), RECORD)] * 1000)
phase('300 slow bodies (1 byte/s)', [(post(5000), b'[', 40)] * 300)
phase('16 MiB of {} (4 at once)', [(post(len(big)), big)] * 4)
phase('16 MiB of {} without a length (4 at once)',
      [(b'POST /v1/check HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n'
        b'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n', chunked)] * 4)
phase('text/plain', [(post(len(RECORD), content_type='text/plain'), RECORD)])
phase('a foreign Host', [(post(len(RECORD), host='evil.example'), RECORD)])
