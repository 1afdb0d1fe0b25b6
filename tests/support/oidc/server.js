// A real OpenID Connect provider (panva/oidc-provider, pinned in package-lock.json) for the SSO tests.
//
//   node server.js CONFIG.json
//
// CONFIG: {"port": 0, "issuer": "http://127.0.0.1:PORT", "jwks": {"keys": [private JWK]},
//          "clients": [...oidc-provider client metadata...], "accounts_file": "accounts.json"}
// accounts.json (read again at every login, so tests can change a person's groups):
//   {"alice": {"password": "...", "sub": "...", "email": "...", "groups": ["staff"]}}
// The login page is the provider's own (served here, outside IrisRAG); consent is granted
// automatically, as for a first-party client. Prints "READY <port>" once it listens.
'use strict';

const fs = require('node:fs');
const http = require('node:http');
const { parse } = require('node:querystring');

const Provider = require('oidc-provider').default ?? require('oidc-provider');

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));

function accounts() {
  return JSON.parse(fs.readFileSync(config.accounts_file, 'utf8'));
}

function accountBySub(sub) {
  return Object.entries(accounts()).find(([, a]) => a.sub === sub);
}

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const provider = new Provider(config.issuer, {
  clients: config.clients,
  jwks: config.jwks,
  cookies: { keys: ['irisrag-test-cookie-key'] },
  claims: {
    openid: ['sub'],
    profile: ['preferred_username', 'name'],
    email: ['email'],
    groups: ['groups'],
  },
  scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
  // Keycloak, Entra ID and Authentik put the mapped claims into the ID token.
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    rpInitiatedLogout: { enabled: true },
  },
  ttl: { IdToken: 300, AccessToken: 300, Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 60 },
  async findAccount(ctx, sub) {
    const found = accountBySub(sub);
    if (!found) return undefined;
    const [username, account] = found;
    return {
      accountId: sub,
      async claims() {
        return { sub, preferred_username: username, name: account.name || username,
                 email: account.email, groups: account.groups || [] };
      },
    };
  },
});
provider.proxy = false;

function loginPage(uid, error) {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Test provider sign-in</title></head>
<body><h1 id="provider-login">Sign in to the test provider</h1>
${error ? `<p id="provider-error">${esc(error)}</p>` : ''}
<form method="post" action="/interaction/${esc(uid)}/login" id="provider-form">
<label for="login">Login</label><input id="login" name="login" autocomplete="username">
<label for="password">Password</label><input id="password" name="password" type="password">
<button type="submit" id="provider-submit">Sign in</button></form></body></html>`;
}

function readBody(req) {
  return new Promise((resolve) => {
    let data = '';
    req.on('data', (chunk) => { data += chunk; });
    req.on('end', () => resolve(parse(data)));
  });
}

async function grantConsent(req, res, details) {
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
  const missing = details.prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

async function interaction(req, res, uid, action) {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'consent') return grantConsent(req, res, details);
  if (req.method === 'POST' && action === 'login') {
    const form = await readBody(req);
    const account = accounts()[form.login];
    if (!account || account.password !== form.password) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(loginPage(uid, 'Wrong login or password.'));
    }
    return provider.interactionFinished(req, res, { login: { accountId: account.sub } },
                                        { mergeWithLastSubmission: false });
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  return res.end(loginPage(uid));
}

const callback = provider.callback();
const server = http.createServer(async (req, res) => {
  const match = /^\/interaction\/([\w-]+)(?:\/(login))?$/.exec(req.url.split('?')[0]);
  if (!match) return callback(req, res);
  try {
    return await interaction(req, res, match[1], match[2]);
  } catch (err) {
    res.writeHead(400, { 'content-type': 'text/plain' });
    return res.end(`interaction failed: ${err.message}`);
  }
});

server.listen(config.port, '127.0.0.1', () => {
  process.stdout.write(`READY ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
