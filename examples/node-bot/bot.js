#!/usr/bin/env node
'use strict';
// node-basic: a rule-based Card Arena bot for every game, in Node.js.
//
//   node bot.js [--host 127.0.0.1] [--port 0] [--no-stream]
//               [--register NAME --api HOST:PORT [--token T] [--advertise HOST:PORT]]
//
// It serves arena.v1.Bot over plaintext gRPC and prints one line when ready:
//   bot node-basic listening on HOST:PORT
// With --register it first enters the arena through Arena/RegisterBot (the ready line
// then also means "registered"); if that fails it prints one line on stderr and exits 1.

const { parseArgs } = require('node:util');
const grpc = require('@grpc/grpc-js');
const { load } = require('./lib/proto');
const { GAMES, chooseAction } = require('./lib/strategy');
const { version } = require('./package.json');

const NAME = 'node-basic';
const REGISTER_TIMEOUT_MS = 15000;
const SHUTDOWN_GRACE_MS = 2000;

const USAGE = `usage: node bot.js [--host HOST] [--port PORT] [--no-stream]
                   [--register NAME --api HOST:PORT [--token T] [--advertise HOST:PORT]]

  --host HOST        address to listen on (default 127.0.0.1)
  --port PORT        port to listen on; 0 picks a free one (default 0)
  --no-stream        tell the referee not to use ActStream (it then calls Act per move)
  --register NAME    register this bot under NAME with the arena API once listening
  --api HOST:PORT    the arena API to register with (needed by --register)
  --token T          API token for --register, sent as "authorization: Bearer T"
                     (default: $ARENA_API_TOKEN)
  --advertise ADDR   address the referees should use (default HOST:PORT as bound)`;

function fail(message, code = 1) {
  process.stderr.write(`${NAME}: ${message.replace(/\s+/g, ' ').trim()}\n`);
  process.exit(code);
}

function parse(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '0' },
        'no-stream': { type: 'boolean', default: false },
        register: { type: 'string' },
        api: { type: 'string' },
        token: { type: 'string' },
        advertise: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    fail(`${error.message} (try --help)`, 2);
  }
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const port = Number(parsed.port);
  if (!/^\d+$/.test(parsed.port) || port > 65535) fail(`bad --port ${parsed.port}`, 2);
  if (parsed.register !== undefined && !parsed.api) fail('--register needs --api HOST:PORT', 2);
  if (parsed.api && parsed.register === undefined) {
    fail('--api is only used with --register NAME', 2);
  }
  return { ...parsed, port, stream: !parsed['no-stream'] };
}

/** Decisions answered, by RPC: printed when the bot stops. */
const answered = { stream: 0, unary: 0 };

/** The service handlers; `stream` is what Hello announces. */
function botService(stream) {
  const answer = (request, via) => {
    const response = {
      action_id: chooseAction(request).id, // the id string as received: exact for any uint64
      match_id: request.match_id,
      decision_index: request.decision_index, // so a stray answer is never taken for this one
    };
    answered[via] += 1;
    return response;
  };
  return {
    Hello(call, callback) {
      callback(null, { name: NAME, version, games: GAMES, supports_stream: stream });
    },
    Act(call, callback) {
      try {
        callback(null, answer(call.request, 'unary'));
      } catch (error) {
        callback({ code: grpc.status.INVALID_ARGUMENT, details: String(error.message || error) });
      }
    },
    ActStream(call) {
      // Requests are answered synchronously as they arrive, so answers keep their order.
      call.on('data', (request) => {
        try {
          call.write(answer(request, 'stream'));
        } catch (error) {
          const details = String(error.message || error);
          call.destroy({ code: grpc.status.INVALID_ARGUMENT, details });
        }
      });
      call.on('end', () => call.end());
      call.on('error', () => {}); // the referee went away; nothing to clean up
    },
    MatchEnded(call, callback) {
      callback(null, {});
    },
  };
}

/** "host:port", with an IPv6 host in brackets. */
function hostPort(host, port) {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function bind(server, address) {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
}

function register(arena, options, address) {
  const client = new arena.Arena(options.api, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  const token = options.token || process.env.ARENA_API_TOKEN;
  if (token) metadata.set('authorization', `Bearer ${token}`);
  const deadline = new Date(Date.now() + REGISTER_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    const request = { name: options.register, address };
    client.RegisterBot(request, metadata, { deadline }, (error, bot) => {
      client.close();
      if (!error) {
        resolve(bot);
        return;
      }
      const code = Object.keys(grpc.status).find((k) => grpc.status[k] === error.code);
      // grpc-js may end a connection error with an empty "Resolution note:".
      const details = (error.details || error.message).replace(/\.?\s*Resolution note:\s*$/, '');
      const where = `${options.register} with the arena at ${options.api}`;
      reject(new Error(`cannot register ${where}: ${code || error.code}: ${details}`));
    });
  });
}

async function main() {
  const options = parse(process.argv.slice(2));
  const arena = load();
  const server = new grpc.Server();
  server.addService(arena.Bot.service, botService(options.stream));

  // Hosted by the arena, the bot listens where the sandbox says: a Unix socket.
  const hosted = process.env.ARENA_BOT_ADDRESS;
  let address = hosted;
  try {
    if (hosted) await bind(server, hosted);
    else address = hostPort(options.host, await bind(server, hostPort(options.host, options.port)));
  } catch (error) {
    fail(`cannot listen on ${hosted || hostPort(options.host, options.port)}: ${error.message}`);
  }

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(
      `bot ${NAME} stopping: ${answered.stream} decisions by ActStream, ${answered.unary} by Act\n`,
    );
    // Let finished calls flush, but do not wait on streams a referee keeps open.
    const timer = setTimeout(() => {
      server.forceShutdown();
      process.exit(0);
    }, SHUTDOWN_GRACE_MS);
    timer.unref();
    server.tryShutdown(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  if (options.register !== undefined) {
    try {
      await register(arena, options, options.advertise || address);
    } catch (error) {
      server.forceShutdown();
      fail(error.message);
    }
  }
  process.stdout.write(`bot ${NAME} listening on ${address}\n`);
}

main().catch((error) => fail(String(error && error.message ? error.message : error)));
