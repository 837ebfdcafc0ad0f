// The official MCP TypeScript SDK's client against `dossier mcp` over stdio: run by
// tests/mcp_sdk_test.cc (which prepares the dossier and passes its paths in the environment).
// Lists tools and resources, calls every tool and checks each structured result against the
// output schema the tool declared (the SDK checks it too), cancels a long p2p on the CUDA
// stand-in and reads the record it kept, and sends malformed messages, expecting JSON-RPC errors
// and a server that still answers. Exits 0 when every check passed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Ajv from 'ajv';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const env = process.env;
const failures = [];
let checks = 0;
function check(ok, what) {
  checks++;
  if (!ok) {
    failures.push(what);
    console.error(`FAIL: ${what}`);
  }
}

const serverArgs = ['mcp', '--dossier', env.MCP_DOSSIER, '--allow-write', '--allow-measure',
  '--allow-root', env.MCP_ROOT_BASE, '--cuda-lib', env.MCP_CUDA_LIB, '--nvml-lib', env.MCP_NVML_LIB];
const serverEnv = { ...env, DOSSIER_STANDIN: 'seed-guest' };

// A stand-in OpenAI-compatible server for serve_bench (tests/standins/openai_standin).
function startStandin() {
  return new Promise((resolve, reject) => {
    const p = spawn(env.MCP_OPENAI_STANDIN, ['--lifetime-s', '300', '--output-len', '16',
      '--ttft-ms', '5', '--itl-ms', '1'], { stdio: ['ignore', 'pipe', 'inherit'] });
    createInterface({ input: p.stdout }).once('line', (url) => resolve({ p, url: url.trim() }));
    p.once('error', reject);
  });
}

async function main() {
  const ajv = new Ajv({ strict: false });
  const transport = new StdioClientTransport({
    command: env.DOSSIER_BINARY, args: serverArgs, env: serverEnv, stderr: 'inherit',
  });
  const client = new Client({ name: 'dossier-sdk-test', version: '1.0.0' });
  await client.connect(transport);
  check(client.getServerVersion()?.name === 'dossier', 'serverInfo.name is dossier');
  check(!!client.getServerCapabilities()?.tools, 'tools capability');
  check(!!client.getServerCapabilities()?.resources, 'resources capability');

  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  for (const n of ['summary', 'report', 'findings', 'facts', 'import', 'note', 'collect', 'diff',
    'generate', 'p2p', 'serve_bench']) {
    check(!!byName[n], `tool ${n} listed`);
    check(byName[n]?.inputSchema?.type === 'object', `${n} inputSchema`);
    check(byName[n]?.outputSchema?.type === 'object', `${n} outputSchema`);
  }

  const standin = await startStandin();
  const paste = readFileSync(env.MCP_PASTE, 'utf8');
  const calls = [
    ['summary', {}],
    ['report', { format: 'md' }],
    ['report', { format: 'json', machine: 'guest', section: 'gpus' }],
    ['findings', { severity: 'critical' }],
    ['facts', { machine: 'pve-host', pointer: '/cpu/sockets' }],
    ['generate', { name: 'nccl-topo', machine: 'guest' }],
    ['import', { machine: 'pve-host', text: paste }],
    ['diff', { machine: 'pve-host' }],  // the collect and the import just stored
    ['note', { kind: 'tried', text: 'Moved the guest to Q35', result: 'P2P still NS', machine: 'guest' }],
    ['collect', { root: env.MCP_TREE, machine: 'captured' }],
    ['p2p', { pairs: '0-1', sizes: '4K', machine: 'guest', seconds: 60 }],
    ['serve_bench', { url: standin.url, concurrency: '1', num_prompts: 4, input_len: 32,
      output_len: 16, seconds: 60, machine: 'client' }],
  ];
  for (const [name, args] of calls) {
    let r;
    try {
      r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120000 });
    } catch (e) {
      check(false, `${name} ${JSON.stringify(args).slice(0, 80)} threw ${e}`);
      continue;
    }
    check(!r.isError, `${name} succeeded: ${r.isError ? r.content?.[0]?.text?.slice(0, 300) : ''}`);
    check(r.structuredContent !== undefined, `${name} has structuredContent`);
    const validate = ajv.compile(byName[name].outputSchema);
    check(validate(r.structuredContent), `${name} result matches its outputSchema: ${ajv.errorsText(validate.errors)}`);
    check(r.content?.[0]?.type === 'text' && r.content[0].text.length > 0, `${name} has text content`);
  }
  standin.p.kill();

  // Resources: the three fixed ones and one per record, each readable.
  const { resources } = await client.listResources();
  const uris = resources.map((r) => r.uri);
  for (const u of ['dossier://report.md', 'dossier://report.json', 'dossier://notes.toml']) {
    check(uris.includes(u), `resource ${u} listed`);
    const c = await client.readResource({ uri: u });
    check(c.contents?.[0]?.text?.length > 0, `resource ${u} read`);
  }
  const records = resources.filter((r) => r.uri.startsWith('dossier://records/'));
  check(records.length >= 6, `records listed (${records.length})`);
  const one = await client.readResource({ uri: records[0].uri });
  check(JSON.parse(one.contents[0].text).schema === 'dossier/1', 'a record reads as dossier/1');
  try {
    await client.readResource({ uri: 'dossier://records/../../etc/passwd' });
    check(false, 'a URI outside the dossier was read');
  } catch (e) {
    check(e.code === -32002, `a URI outside the dossier: resource not found (${e.code})`);
  }

  // Cancel a long p2p (the stand-in's 8 GPUs at 1M and 2M: hundreds of results) after three
  // results were notified as progress; the record keeps what was measured.
  const p2pBefore = records.filter((r) => r.name.includes('-p2p-')).length;
  const ac = new AbortController();
  let progress = 0;
  let last = -1;
  let monotonic = true;
  const long = client.callTool(
    { name: 'p2p', arguments: { sizes: '1M,2M', machine: 'guest', seconds: 600 } }, undefined, {
      signal: ac.signal,
      timeout: 600000,
      onprogress: (p) => {
        monotonic &&= p.progress > last;
        last = p.progress;
        // The first lines say what will be measured; results are "p2p [i/n] …".
        if (String(p.message).includes('p2p [') && ++progress === 3) ac.abort('enough');
      },
    });
  let aborted = false;
  try {
    await long;
  } catch (e) {
    aborted = true;
  }
  check(aborted && progress >= 3, `p2p cancelled after ${progress} progress notifications`);
  check(monotonic, 'progress increases');
  check((await client.ping()) !== undefined, 'ping answered after the cancellation');
  let kept = null;
  for (let i = 0; i < 300 && !kept; i++) {
    const { resources: now } = await client.listResources();
    const p2p = now.filter((r) => r.name.includes('-p2p-'));
    if (p2p.length > p2pBefore) {
      kept = JSON.parse((await client.readResource({ uri: p2p[p2p.length - 1].uri })).contents[0].text);
    } else {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  check(kept !== null, 'the cancelled p2p kept a record');
  if (kept) {
    check(kept.p2p.interrupted === true, 'the kept record is marked interrupted');
    check(kept.p2p.results.length >= 2 && kept.p2p.results.length < 512,
      `the kept record holds what was measured (${kept.p2p.results.length} results)`);
  }

  // Untrusted arguments through the SDK: JSON-RPC errors, and the server goes on.
  for (const [name, args, what] of [
    ['p2p', { reps: 'five' }, 'a string for an integer'],
    ['import', { machine: 'guest', text: 'x'.repeat(16 << 20) }, 'a 16 MiB argument'],
    ['collect', { root: '/etc' }, 'a root outside the allowed'],
    ['no_such_tool', {}, 'an unknown tool'],
  ]) {
    try {
      const r = await client.callTool({ name, arguments: args });
      check(false, `${what}: answered ${JSON.stringify(r).slice(0, 200)}`);
    } catch (e) {
      check(e.code === -32602, `${what}: invalid params (${e.code} ${String(e.message).slice(0, 120)})`);
    }
  }
  check((await client.ping()) !== undefined, 'ping answered after the bad calls');
  await client.close();

  // Malformed messages, written raw: the SDK would not send them.
  const raw = spawn(env.DOSSIER_BINARY, ['mcp', '--dossier', env.MCP_DOSSIER], { stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = createInterface({ input: raw.stdout });
  const replies = [];
  lines.on('line', (l) => replies.push(JSON.parse(l)));
  const send = (s) => raw.stdin.write(s + '\n');
  send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }));
  send('{"jsonrpc":"2.0","id":2,');
  send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'no/such' }));
  send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'facts', arguments: { machine: 7 } } }));
  send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' }));
  raw.stdin.end();
  const code = await new Promise((r) => raw.on('exit', r));
  const byId = (id) => replies.find((m) => m.id === id);
  check(byId(1)?.result?.protocolVersion === '2025-06-18', 'raw: initialize');
  check(replies.some((m) => m.id === null && m.error?.code === -32700), 'raw: bad JSON is a parse error');
  check(byId(3)?.error?.code === -32601, 'raw: unknown method');
  check(byId(4)?.error?.code === -32602, 'raw: a number for a name');
  check(byId(5)?.result !== undefined, 'raw: ping answered after them');
  check(code === 0, `raw: the server exits 0 when stdin closes (${code})`);

  console.log(`${checks - failures.length}/${checks} checks passed`);
  process.exit(failures.length ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
