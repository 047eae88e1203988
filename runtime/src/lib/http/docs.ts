/**
 * `GET {base}/docs`: a browsable reference of the API, Swagger UI
 * over `{base}/openapi.json`. Its assets come from the `swagger-ui-dist` package in node_modules,
 * so the page works without a network. Only the files the page loads are served.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { completeRoute } from './routing.js';

const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

export function docsRoutes(app: FastifyInstance, title: string): void {
  // Found at start-up (a missing package stops the service there), read on first use (about 2 MB
  // that most starts, and every test app, never serve), then kept: the files never change.
  const folder = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map<string, Buffer>();
  const page = docsPage(title);
  const policy = contentSecurityPolicy(page);
  app.get('/docs', async (_request, reply) =>
    reply
      .header('content-security-policy', policy)
      .header('x-frame-options', 'DENY')
      .type('text/html; charset=utf-8')
      .send(page),
  );
  completeRoute(app, '/docs', ['GET']);
  // The page's relative URLs (`docs/…`) need it at `/docs`: `/docs/` is sent there.
  app.get('/docs/', async (_request, reply) => reply.redirect('../docs', 301));
  completeRoute(app, '/docs/', ['GET']);
  for (const [name, type] of Object.entries(ASSETS)) {
    app.get(`/docs/${name}`, async (_request, reply) => {
      let content = files.get(name);
      if (!content) files.set(name, (content = readFileSync(join(folder, name))));
      reply.header('cache-control', 'public, max-age=3600');
      return reply.type(type).send(content);
    });
    completeRoute(app, `/docs/${name}`, ['GET']);
  }
}

/**
 * What the page may load and run: its own files and its one inline script (by its hash), the
 * styles and images Swagger UI makes; never in another site's frame (clickjacking its "Try it
 * out", which sends the caller's cookie).
 */
function contentSecurityPolicy(page: string): string {
  const script = /<script>([\s\S]*?)<\/script>/.exec(page)![1]!;
  const hash = createHash('sha256').update(script).digest('base64');
  return [
    "default-src 'none'",
    `script-src 'self' 'sha256-${hash}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Relative URLs: `docs/…` and `openapi.json` resolve below the base path, wherever it is. */
function docsPage(title: string): string {
  const text = title.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${text} — API reference</title>
<link rel="icon" href="docs/favicon-32x32.png">
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: 'openapi.json', dom_id: '#swagger-ui', deepLinking: true });
</script>
</body>
</html>
`;
}
