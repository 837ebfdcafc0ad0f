#!/usr/bin/python3
"""The comparison row of bench/serve_client_bench.cc: the same load through a client that does what
vLLM's bench serve request function does (one shared aiohttp session, response.content.iter_any(),
SSE messages split on blank lines, json.loads of every event, time.perf_counter() per event), so
the CPU per 1,000 tokens and the timing error of that approach can be put beside dossier's.
Written for this comparison, not taken from vLLM.

usage: vllm_style_client.py URL STREAMS REQUESTS MAX_TOKENS OUT.json
Runs REQUESTS requests, STREAMS at a time, to URL (/v1/completions), and writes per request its
X-Request-Id, start and per-chunk arrival times (ns, CLOCK_MONOTONIC, as perf_counter on Linux),
and the process's CPU seconds. Needs Debian's python3-aiohttp (/usr/bin/python3).
"""
import asyncio
import json
import resource
import sys
import time

import aiohttp


async def one(session, url, index, max_tokens, out):
    body = {
        "model": "standin-model",
        "prompt": "the of and to in is that for it as " * 3,
        "max_tokens": max_tokens,
        "stream": True,
        "ignore_eos": True,
        "stream_options": {"include_usage": True},
    }
    rid = f"py-{index}"
    start = time.perf_counter_ns()
    arrivals = []
    ok = False
    buffer = ""
    async with session.post(url, json=body, headers={"x-request-id": rid}) as resp:
        if resp.status == 200:
            async for chunk in resp.content.iter_any():
                buffer += chunk.decode("utf-8")
                while "\n\n" in buffer:
                    message, buffer = buffer.split("\n\n", 1)
                    message = message.strip()
                    if not message or message.startswith(":"):
                        continue
                    data = message.removeprefix("data: ")
                    if data == "[DONE]":
                        ok = True
                        continue
                    event = json.loads(data)
                    if event.get("choices"):
                        arrivals.append(time.perf_counter_ns())
    out.append({"id": rid, "ok": ok, "start_ns": start, "arrival_ns": arrivals})


async def main():
    url, streams, requests, max_tokens, path = (
        sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    out = []
    connector = aiohttp.TCPConnector(limit=streams, limit_per_host=streams)
    timeout = aiohttp.ClientTimeout(total=6 * 60 * 60)
    sem = asyncio.Semaphore(streams)

    async def limited(i):
        async with sem:
            await one(session, url, i, max_tokens, out)

    ru0 = resource.getrusage(resource.RUSAGE_SELF)  # start-up and imports are not the load's
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        t0 = time.perf_counter_ns()
        await asyncio.gather(*(limited(i) for i in range(requests)))
        t1 = time.perf_counter_ns()
    ru = resource.getrusage(resource.RUSAGE_SELF)
    with open(path, "w") as f:
        json.dump({"cpu_s": ru.ru_utime + ru.ru_stime - ru0.ru_utime - ru0.ru_stime, "start_ns": t0, "end_ns": t1,
                   "requests": out}, f)


if __name__ == "__main__":
    asyncio.run(main())
