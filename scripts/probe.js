#!/usr/bin/env node
// `node scripts/probe.js [url]`: the containers' HEALTHCHECK. Exits 0 when the URL answers 2xx within
// 4 s, else 1 with one line on stderr. The runtime image has no curl or wget; Node has fetch.
// Default: the worker's readiness probe on its default METRICS_PORT (the web page's is /readyz on WEB_PORT).
import process from 'node:process';

/* global console, fetch, AbortSignal */

const url = process.argv[2] ?? 'http://127.0.0.1:9464/readyz';

try {
  const response = await fetch(url, { signal: AbortSignal.timeout(4000) });
  if (!response.ok) {
    console.error(`probe: ${url} answered ${response.status} ${(await response.text()).slice(0, 200)}`);
    process.exit(1);
  }
} catch (error) {
  console.error(`probe: ${url} did not answer: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
