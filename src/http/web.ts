/**
 * The page at `/`: three static files (plain HTML, CSS and one ES module),
 * served from src/web/ of the package (no build step: the files are used as
 * written). Only these files are served, so nothing else in the folder can
 * leak. The page talks to the public API from the browser; its strict
 * Content-Security-Policy allows only this origin.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Router } from 'express';

/** src/web of the package (this module is dist/src/http/web.js once compiled). */
export const WEB_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src', 'web');

export const WEB_FILES = [
  { route: '/', file: 'index.html' },
  { route: '/app.js', file: 'app.js' },
  { route: '/style.css', file: 'style.css' },
] as const;

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

export function webRoutes(root: string = WEB_ROOT): Router {
  const router = Router();
  for (const { route, file } of WEB_FILES) {
    router.get(route, (_req, res, next) => {
      res.sendFile(file, { root, headers: SECURITY_HEADERS, dotfiles: 'deny' }, (err) => {
        if (err && !res.headersSent) next(err);
      });
    });
  }
  return router;
}
