'use strict';
// Loads the arena's contract from the repository's .proto files at run time (no
// generated code). uint64 fields such as LegalAction.id arrive as decimal strings
// (`longs: String`) and are sent back as the same strings: JavaScript numbers are
// exact only up to 2^53 and Seep / Persian Rummy ids go far beyond that.

const fs = require('node:fs');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

// A package the arena hosts carries the .proto files beside the bot (proto/); in the
// repository they are at its root: examples/node-bot/lib -> repository root -> proto/.
const PACKAGED = path.resolve(__dirname, '..', 'proto');
const PROTO_ROOT = fs.existsSync(PACKAGED)
  ? PACKAGED
  : path.resolve(__dirname, '..', '..', '..', 'proto');

const LOADER_OPTIONS = {
  keepCase: true, // field names exactly as in the .proto files (legal_actions, action_id)
  longs: String, // 64-bit integers as decimal strings, never as lossy JS numbers
  enums: String, // enum values by name, e.g. 'SUIT_HEARTS', 'BID_EUCHRE_CALL_PASS'
  defaults: true, // unset scalars and repeated fields get their proto3 defaults
  oneofs: true, // a oneof's name holds the name of the field that is set
  includeDirs: [PROTO_ROOT],
};

function load() {
  const definition = protoLoader.loadSync(
    ['arena/v1/bot.proto', 'arena/v1/arena.proto'],
    LOADER_OPTIONS,
  );
  return grpc.loadPackageDefinition(definition).arena.v1;
}

module.exports = { load, PROTO_ROOT, LOADER_OPTIONS };
