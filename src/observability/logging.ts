import type { Params } from 'nestjs-pino';
import type { AuthenticatedRequest } from '../auth/auth.guard';
import { requestId } from '../common/request-id';
import type { Config } from '../config/config.schema';

/**
 * JSON logs with request id and tenant. Requests are logged with method, path and user agent only, so
 * no credential header or query string can reach the log; `redact` guards anything logged by hand.
 */
export function loggingParams(config: Config): Params {
  return {
    pinoHttp: {
      level: config.logging.level,
      genReqId: requestId,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'req.headers["x-api-key"]',
          'res.headers["set-cookie"]',
        ],
        censor: '[redacted]',
      },
      customProps: (request) => ({ tenant: (request as AuthenticatedRequest).identity?.tenantId }),
      autoLogging: {
        ignore: (request) => request.url === '/healthz' || request.url === '/readyz' || request.url === '/metrics',
      },
      serializers: {
        req: (req: { id: string; method: string; url: string; headers: Record<string, unknown> }) => ({
          id: req.id,
          method: req.method,
          url: req.url?.split('?')[0],
          headers: { 'user-agent': req.headers['user-agent'] },
        }),
      },
    },
  };
}
