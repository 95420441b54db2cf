#!/usr/bin/env python3
"""A synthetic LOD cloud on loopback, for scripts/bench-scale.

N providers, each with a VoID file and a few small N-Triples dumps, spread
over HOSTS loopback addresses (127.1.x.y, 250 to each x: 127.0.0.0/8 has
room for thousands; never-answering providers on 127.2.0.x of their own).
Each answer waits a latency drawn from a log-normal distribution; a share
of providers never answer (the connection is held open), a share trickle
their dumps (a byte a second), and a share publish a VoID whose
dcterms:modified changes every minute.

Every VoID request is recorded (time answered, provider, time received) and
written to LOG when the server is stopped (SIGTERM), for the visit-lag and
per-host politeness figures. The registry is
written to REGISTRY at start.

  bench_scale_server.py --providers 2000 --port P --registry R --log L
"""
import argparse
import asyncio
import math
import random
import signal
import sys
import time


def parse_args():
    a = argparse.ArgumentParser()
    a.add_argument("--providers", type=int, default=2000)
    a.add_argument("--hosts", type=int, default=100)
    a.add_argument("--dumps", type=int, default=3)
    a.add_argument("--never", type=float, default=0.05)
    a.add_argument("--trickle", type=float, default=0.02)
    a.add_argument("--changing", type=float, default=0.10)
    a.add_argument("--latency-ms", type=float, default=50.0, help="median")
    a.add_argument("--sigma", type=float, default=1.0, help="log-normal sigma")
    a.add_argument("--port", type=int, required=True)
    a.add_argument("--registry", required=True)
    a.add_argument("--log", required=True)
    a.add_argument("--seed", type=int, default=1)
    return a.parse_args()


ARGS = parse_args()
RNG = random.Random(ARGS.seed)
KIND = {}  # provider -> "never" | "trickle" | "changing" | "plain"
for i in range(ARGS.providers):
    r = RNG.random()
    if r < ARGS.never:
        KIND[i] = "never"
    elif r < ARGS.never + ARGS.trickle:
        KIND[i] = "trickle"
    elif r < ARGS.never + ARGS.trickle + ARGS.changing:
        KIND[i] = "changing"
    else:
        KIND[i] = "plain"
VISITS = []  # (time answered, provider, time received)


def host_of(i):
    if KIND[i] == "never":
        return "127.2.0.%d" % (1 + i % 250)
    h = i % ARGS.hosts
    return "127.1.%d.%d" % (h // 250, 1 + h % 250)


def base_of(i):
    return "http://%s:%d/p/%d" % (host_of(i), ARGS.port, i)


def void_of(i):
    if KIND[i] == "changing":
        modified = time.strftime("%Y-%m-%dT%H:%M:00Z", time.gmtime())
    else:
        modified = "2020-01-01T00:00:00Z"
    dumps = " , ".join("<%s/d%d.nt>" % (base_of(i), j) for j in range(ARGS.dumps))
    return ("@prefix void: <http://rdfs.org/ns/void#> .\n"
            "@prefix dcterms: <http://purl.org/dc/terms/> .\n"
            "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
            "<#d> a void:Dataset ; void:dataDump %s ;\n"
            "  dcterms:modified \"%s\"^^xsd:dateTime .\n" % (dumps, modified)).encode()


def dump_of(i, j):
    return "".join("<http://example.org/p%d/s%d> <http://example.org/v> \"%d-%d-%d\" .\n"
                   % (i, k, i, j, k) for k in range(20)).encode()


def latency():
    return ARGS.latency_ms / 1000.0 * math.exp(RNG.gauss(0, ARGS.sigma))


async def respond(writer, status, body, ctype="text/plain"):
    head = ("HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %d\r\n"
            "Connection: close\r\n\r\n" % (status, ctype, len(body))).encode()
    writer.write(head + body)
    await writer.drain()


async def handle(reader, writer):
    try:
        request = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        path = request.split(b" ", 2)[1].decode()
        parts = path.split("/")
        if path == "/robots.txt":
            # the never-answering hosts do not answer this either
            host = writer.get_extra_info("sockname")[0]
            if host.startswith("127.2."):
                await asyncio.sleep(3600)
            await respond(writer, 404, b"")
            return
        if len(parts) != 4 or parts[1] != "p":
            await respond(writer, 404, b"")
            return
        i = int(parts[2])
        received = time.time()
        if KIND.get(i) == "never":
            await asyncio.sleep(3600)
            return
        await asyncio.sleep(latency())
        if parts[3] == "void.ttl":
            VISITS.append((time.time(), i, received))
            await respond(writer, 200, void_of(i), "text/turtle")
        elif parts[3].startswith("d") and parts[3].endswith(".nt"):
            body = dump_of(i, int(parts[3][1:-3]))
            if KIND[i] == "trickle":
                writer.write(("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                              "Connection: close\r\n\r\n" % len(body)).encode())
                for b in body:
                    writer.write(bytes([b]))
                    await writer.drain()
                    await asyncio.sleep(1)
            else:
                await respond(writer, 200, body, "application/n-triples")
        else:
            await respond(writer, 404, b"")
    except (asyncio.TimeoutError, asyncio.IncompleteReadError, ConnectionError,
            ValueError, IndexError):
        pass
    finally:
        writer.close()


def write_registry():
    with open(ARGS.registry, "w") as f:
        for i in range(ARGS.providers):
            f.write("p%d:\n  void: %s/void.ttl\n" % (i, base_of(i)))


async def main():
    write_registry()
    hosts = sorted({host_of(i) for i in range(ARGS.providers)})
    server = await asyncio.start_server(handle, host=hosts, port=ARGS.port, backlog=4096)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    print("ready", flush=True)
    await stop.wait()
    server.close()
    with open(ARGS.log, "w") as f:
        for t, i, received in VISITS:
            f.write("%.3f %d %s %.3f %s\n" % (t, i, KIND[i], received, host_of(i)))


asyncio.run(main())
