/**
 * The GraphiQL page served at GET /graphql to browsers. Everything it loads comes from our own origin
 * (src/graphiql/graphiql.routes.ts serves the npm packages' UMD builds), so it works on a network
 * with no internet, and its CSP allows no other origin. No inline script or style: the bootstrapping
 * code and the page's few rules are served files too.
 */

export const ASSET_PATH = '/graphiql/assets';

/** Served from node_modules: package, file inside it, content type. */
export const VENDOR_ASSETS: Record<string, { pkg: string; file: string; type: string }> = {
  'react.production.min.js': { pkg: 'react', file: 'umd/react.production.min.js', type: 'application/javascript; charset=utf-8' },
  'react-dom.production.min.js': { pkg: 'react-dom', file: 'umd/react-dom.production.min.js', type: 'application/javascript; charset=utf-8' },
  'graphiql.min.js': { pkg: 'graphiql', file: 'graphiql.min.js', type: 'application/javascript; charset=utf-8' },
  'graphiql.min.css': { pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css; charset=utf-8' },
};

/**
 * Starts GraphiQL. The token lives only in the page's input (never in storage): it goes out as the
 * Authorization header on HTTP and in graphql-ws's connection_init payload, which is where
 * src/graphql/ws.ts reads it.
 *
 * Introspection is for authenticated callers by default, so until a token is entered GraphiQL gets no
 * schema (schema: null) and asks the server for none: its first screen would otherwise open on the
 * refusal, in red. A new token remounts GraphiQL (a new key), which introspects with that token and
 * starts from a clean response pane (GraphiQL leaves an earlier introspection error there).
 *
 * Subscriptions always go to graphql-ws: GraphiQL's fetcher routes by its own parse of the editor,
 * which lags typing by a debounce (as does the operation name it sends), so Run pressed right after
 * typing sent a subscription over HTTP, or under the previous text's operation name. The fetcher
 * below decides both from the request's own text.
 */
export const BOOT_JS = `'use strict';
(function () {
  var form = document.getElementById('lms-token-form');
  var input = document.getElementById('lms-token');
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  var wsUrl = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql';
  var DEFAULT_QUERY = '# Paste an access token above and press Enter, then run a query:\\n{\\n  viewer {\\n    _id\\n    name\\n  }\\n}\\n';
  var mounted = null;
  var mounts = 0;
  function chosenOperation(params) {
    var doc;
    try {
      doc = GraphiQL.GraphQL.parse(params.query);
    } catch (e) {
      return null;
    }
    var ops = doc.definitions.filter(function (d) { return d.kind === 'OperationDefinition'; });
    var named = ops.filter(function (d) { return params.operationName && d.name && d.name.value === params.operationName; });
    // A name the text does not hold is GraphiQL's, from before the last edit: the only operation is meant.
    var op = named.length === 1 ? named[0] : ops.length === 1 ? ops[0] : null;
    return op ? { doc: doc, op: op, name: op.name ? op.name.value : undefined } : null;
  }
  function fetcherFor(token) {
    var auth = token ? { Authorization: 'Bearer ' + token } : {};
    var fetcher = GraphiQL.createFetcher({ url: '/graphql', subscriptionUrl: wsUrl, headers: auth, wsConnectionParams: auth });
    return function (params, opts) {
      var chosen = chosenOperation(params);
      if (chosen && chosen.name !== (params.operationName || undefined)) params = Object.assign({}, params, { operationName: chosen.name });
      if (chosen && chosen.op.operation === 'subscription') opts = Object.assign({}, opts, { documentAST: chosen.doc });
      return fetcher(params, opts);
    };
  }
  function render() {
    var token = input.value.trim();
    if (token === mounted) return;
    mounted = token;
    mounts += 1;
    root.render(React.createElement(GraphiQL, {
      key: 'graphiql-' + mounts,
      fetcher: fetcherFor(token),
      schema: token ? undefined : null,
      defaultQuery: DEFAULT_QUERY,
      shouldPersistHeaders: false,
    }));
  }
  form.addEventListener('submit', function (e) { e.preventDefault(); render(); });
  input.addEventListener('change', render);
  render();
})();
`;

export const PAGE_CSS = `html, body { height: 100%; margin: 0; }
body { display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
#lms-token-form { display: flex; gap: 0.5rem; align-items: center; padding: 0.4rem 0.75rem; border-bottom: 1px solid #ddd; font-size: 14px; }
#lms-token-form label { white-space: nowrap; }
#lms-token { flex: 1; max-width: 40rem; font-family: monospace; }
#graphiql { flex: 1; min-height: 0; }
`;

export function graphiqlHtml(version: string): string {
  const v = encodeURIComponent(version);
  const asset = (name: string) => `${ASSET_PATH}/${name}?v=${v}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL</title>
<link rel="stylesheet" href="${asset('graphiql.min.css')}">
<link rel="stylesheet" href="${asset('page.css')}">
</head>
<body>
<form id="lms-token-form" autocomplete="off">
<label for="lms-token">Access token</label>
<input id="lms-token" name="token" type="password" placeholder="Paste an access token first: the schema loads once it is set (kept in this page only)" spellcheck="false" autofocus>
<button type="submit">Use token</button>
</form>
<div id="graphiql">Loading GraphiQL…</div>
<script src="${asset('react.production.min.js')}"></script>
<script src="${asset('react-dom.production.min.js')}"></script>
<script src="${asset('graphiql.min.js')}"></script>
<script src="${asset('boot.js')}"></script>
</body>
</html>
`;
}

/**
 * Nothing but our own origin. connect-src names the graphql-ws endpoint's host for both schemes (a
 * TLS-terminating proxy may make the browser's scheme differ from ours); GraphiQL's fonts are data:
 * URLs inside its stylesheet.
 */
export function graphiqlCsp(host: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ws://${host} wss://${host}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
