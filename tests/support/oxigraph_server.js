// A SPARQL 1.1 server around Oxigraph's engine (the `oxigraph` package from
// the npm registry), for the sparql store's tests: the same endpoints as the
// `oxigraph serve` binary, on 127.0.0.1 only.
//
//   node oxigraph_server.js PORT [MODULE_DIR]
//
//   /query    SPARQL 1.1 Protocol, query (GET ?query=, POST form or
//             application/sparql-query); Accept text/csv or JSON results
//   /update   SPARQL 1.1 Protocol, update (POST form or application/sparql-update)
//   /store    Graph Store Protocol (?graph=IRI or ?default): GET, POST, PUT, DELETE
//
// MODULE_DIR is the folder whose node_modules holds oxigraph. Prints
// "listening PORT" once it accepts connections; SIGTERM stops it.
'use strict';
const http = require('http');
const path = require('path');

const port = Number(process.argv[2]);
const moduleDir = process.argv[3] || process.cwd();
const ox = require(path.join(moduleDir, 'node_modules', 'oxigraph'));
const store = new ox.Store();

const RDF_FORMATS = {
  'application/n-triples': 'application/n-triples',
  'text/plain': 'application/n-triples',
  'text/turtle': 'text/turtle',
  'application/n-quads': 'application/n-quads',
  'application/rdf+xml': 'application/rdf+xml',
};

function send(res, code, body, type) {
  res.writeHead(code, {'Content-Type': type || 'text/plain; charset=utf-8'});
  res.end(body);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function mediaType(header) {
  return (header || '').split(';')[0].trim().toLowerCase();
}

// The operation of a Protocol request: from the query string, a form body
// or a direct body of the given media type.
function operation(req, url, body, field, direct) {
  if (url.searchParams.has(field)) {
    return url.searchParams.get(field);
  }
  const type = mediaType(req.headers['content-type']);
  if (type === 'application/x-www-form-urlencoded') {
    return new URLSearchParams(body.toString('utf8')).get(field);
  }
  return type === direct ? body.toString('utf8') : null;
}

function runQuery(req, res, url, body) {
  const q = operation(req, url, body, 'query', 'application/sparql-query');
  if (!q) {
    return send(res, 400, 'no query');
  }
  const accept = req.headers['accept'] || '';
  const format = accept.includes('text/csv') ? 'csv'
    : accept.includes('n-triples') ? 'nt' : 'json';
  const type = format === 'csv' ? 'text/csv' : format === 'nt'
    ? 'application/n-triples' : 'application/sparql-results+json';
  send(res, 200, store.query(q, {results_format: format}), type);
}

function runUpdate(req, res, url, body) {
  const u = operation(req, url, body, 'update', 'application/sparql-update');
  if (!u) {
    return send(res, 400, 'no update');
  }
  store.update(u);
  send(res, 204, '');
}

function graphOf(url) {
  if (url.searchParams.has('graph')) {
    return ox.namedNode(url.searchParams.get('graph'));
  }
  return url.searchParams.has('default') ? ox.defaultGraph() : null;
}

function clearGraph(graph) {
  for (const q of store.match(null, null, null, graph)) {
    store.delete(q);
  }
}

function runStore(req, res, url, body) {
  const graph = graphOf(url);
  if (!graph) {
    return send(res, 400, 'say ?graph=IRI or ?default');
  }
  if (req.method === 'GET') {
    return send(res, 200, store.dump({format: 'application/n-triples', from_graph_name: graph}),
                'application/n-triples');
  }
  if (req.method === 'DELETE') {
    clearGraph(graph);
    return send(res, 204, '');
  }
  const format = RDF_FORMATS[mediaType(req.headers['content-type'])];
  if (!format) {
    return send(res, 415, 'unsupported media type');
  }
  if (req.method === 'PUT') {
    clearGraph(graph);
  }
  store.load(body.toString('utf8'), {format, to_graph_name: graph});
  send(res, req.method === 'PUT' ? 201 : 204, '');
}

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url, 'http://127.0.0.1');
    const body = await readBody(req);
    if (url.pathname === '/query') {
      return runQuery(req, res, url, body);
    }
    if (url.pathname === '/update' && req.method === 'POST') {
      return runUpdate(req, res, url, body);
    }
    if (url.pathname === '/store') {
      return runStore(req, res, url, body);
    }
    send(res, 404, 'not found');
  } catch (e) {
    // Oxigraph's parse errors: the request was bad, not the server.
    send(res, 400, String(e && e.message ? e.message : e));
  }
});

server.listen(port, '127.0.0.1', () => console.log(`listening ${port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
