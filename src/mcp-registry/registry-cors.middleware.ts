import type { NextFunction, Request, Response } from 'express';

/**
 * CORS for the registry API only: browser-based clients (an editor's private-registry setting) read it
 * from another origin. Credentials travel as a bearer header, never cookies, so any origin may ask and
 * still needs a valid key; preflights are answered here, before authentication, as browsers send them bare.
 */
export function registryCors(request: Request, response: Response, next: NextFunction): void {
  response.setHeader('Access-Control-Allow-Origin', '*');
  response.setHeader('Access-Control-Allow-Methods', 'GET, OPTIONS');
  response.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, Accept');
  response.setHeader('Access-Control-Max-Age', '600');
  if (request.method === 'OPTIONS') {
    response.status(204).end();
    return;
  }
  next();
}
