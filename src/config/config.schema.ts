import ms from 'ms';
import { z } from 'zod';

/**
 * Environment overrides arrive as text, so numeric and boolean keys accept their written form
 * ("8080", "true") while text keys keep values such as "0123" exactly as written.
 */
const text = () => z.preprocess((v) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v), z.string());
const optionalText = () => text().optional();
export const integer = () =>
  z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v), z.number().int());
export const flag = () =>
  z.preprocess((v) => {
    if (typeof v !== 'string') return v;
    const word = v.trim().toLowerCase();
    if (['true', 'yes', 'on', '1'].includes(word)) return true;
    if (['false', 'no', 'off', '0'].includes(word)) return false;
    return v;
  }, z.boolean());

/** Durations are written as "30s", "10m", "90d" or as milliseconds. */
export const duration = () =>
  z.union([integer().pipe(z.number().nonnegative()), z.string()]).transform((value, ctx) => {
    if (typeof value === 'number') return value;
    // ms() throws on an empty string instead of answering undefined; either way it is not a duration.
    const parsed = value.trim() === '' ? undefined : ms(value.trim() as ms.StringValue);
    if (typeof parsed !== 'number' || Number.isNaN(parsed) || parsed < 0) {
      ctx.addIssue({ code: 'custom', message: 'expected a duration such as "30s", "10m", "1h" or "90d"' });
      return z.NEVER;
    }
    return parsed;
  });

const port = () => integer().pipe(z.number().min(0).max(65535));

const jwtSchema = z
  .object({
    secret: optionalText(),
    public_key: optionalText(),
    jwks_url: z.url().optional(),
    jwks_cache_ttl: duration().default(600_000),
    algorithms: z
      .array(z.enum(['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512']))
      .optional(),
    issuer: optionalText(),
    audience: optionalText(),
    tenant_claim: text().default('tenant_id'),
    roles_claim: text().default('roles'),
    agent_profile_claim: text().default('agent_profile'),
    admin_role: text().default('admin'),
    /** A token without `exp` would stay valid forever once issued. */
    require_exp: flag().default(true),
    /** Clock skew allowed against the issuer, for `exp`, `nbf` and an `iat` in the future. */
    clock_tolerance: duration().default(30_000),
    /**
     * Longest lifetime accepted (exp - iat, and exp - now): a token minted to outlive this, by mistake or by a
     * stolen signing key, is refused rather than trusted for years.
     */
    max_token_lifetime: duration().pipe(z.number().min(60_000, 'expected at least 1m')).default(86_400_000),
  })
  .strict();

/** /mcp as an OAuth 2.1 protected resource (MCP authorization); off while `issuer` is unset. */
/** Toolgate as its own OAuth 2.1 authorization server for /mcp (see src/auth/authorization-server/). */
const authorizationServerSchema = z
  .object({
    enabled: flag().default(false),
    /** Lifetime of the access tokens it signs; short, since only a refresh looks at the API key's state again. */
    access_token_ttl: duration()
      .pipe(z.number().min(60_000, 'expected at least 1m').max(86_400_000, 'expected at most 24h'))
      .default(600_000),
    /** Lifetime of a refresh token (each refresh issues a new one and spends the old). */
    refresh_token_ttl: duration()
      .pipe(z.number().min(3_600_000, 'expected at least 1h').max(31_536_000_000, 'expected at most 365d'))
      .default(2_592_000_000),
    /** Accept Client ID Metadata Documents: a client_id that is the https URL of the client's metadata. */
    client_id_metadata_documents: flag().default(true),
    /**
     * Development and tests only: fetch client metadata documents from http:// URLs and from private or loopback
     * addresses too (by default only https on public addresses, whatever mcp.allow_private_networks says).
     */
    client_id_metadata_allow_local: flag().default(false),
    /**
     * Registrations (POST /register) allowed per source address (IPv6: per /64), counted in the database so the
     * limit holds across replicas; registration is open to anyone, as MCP clients expect.
     */
    registration_rate_limit: z
      .object({
        per_minute: integer().pipe(z.number().min(1)).optional(),
        per_hour: integer().pipe(z.number().min(1)).optional(),
        per_day: integer().pipe(z.number().min(1)).optional(),
      })
      .strict()
      .default({ per_minute: 10, per_hour: 100 }),
    /** A registered client nobody has authorized within this long after its registration is deleted. */
    unused_client_ttl: duration().pipe(z.number().min(60_000, 'expected at least 1m')).default(86_400_000),
  })
  .strict();

const oauthSchema = z
  .object({
    issuer: z.url().optional(),
    /** The canonical URL of this /mcp endpoint, as clients reach it: tokens must name it as their audience. */
    resource: z.url().optional(),
    /** Where the issuer's signing keys are; discovered from the issuer's metadata when unset. */
    jwks_url: z.url().optional(),
    /** Scopes a token must carry (all of them) to use /mcp; advertised in the metadata and challenges. */
    scopes: z
      .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'expected a scope token'))
      .default(['toolgate:mcp']),
    authorization_server: authorizationServerSchema.prefault({}),
  })
  .strict()
  .refine((oauth) => !(oauth.issuer || oauth.authorization_server.enabled) || oauth.resource, {
    message:
      'auth.oauth.resource is required with auth.oauth.issuer or auth.oauth.authorization_server.enabled: ' +
      'set it to the public URL of /mcp',
    path: ['resource'],
  })
  .refine((oauth) => !oauth.authorization_server.enabled || (!oauth.issuer && !oauth.jwks_url), {
    message:
      'leave auth.oauth.issuer and auth.oauth.jwks_url unset with auth.oauth.authorization_server.enabled: ' +
      'Toolgate is then its own issuer, at the origin of auth.oauth.resource',
    path: ['issuer'],
  })
  // Every reader of `issuer` (metadata, token checks) then names the built-in authorization server.
  .transform((oauth) =>
    oauth.authorization_server.enabled ? { ...oauth, issuer: new URL(oauth.resource!).origin } : oauth,
  );

const templateName = () => z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,255}$/);
/** A Kubernetes object name (RFC 1123 subdomain). */
const objectName = () =>
  text().pipe(
    z
      .string()
      .max(253)
      .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'expected a Kubernetes name: lower-case letters, digits, "-" and "."'),
  );

/** `sandbox.runtime: kubernetes`: each run claims a sandbox of kubernetes-sigs/agent-sandbox (see src/tools/sandbox/kubernetes). */
const kubernetesSandbox = z
  .object({
    /** A kubeconfig file; unset: $KUBECONFIG, ~/.kube/config, then the pod's service account (in-cluster). */
    kubeconfig: optionalText(),
    /** The kubeconfig context; unset: its current context. */
    context: optionalText(),
    /** Where the SandboxClaims are made; unset: the context's namespace (in-cluster: the pod's own). */
    namespace: objectName().optional(),
    /**
     * Catalog template name -> either the SandboxTemplate whose SandboxWarmPool is looked up
     * (`sandbox_template`), or the SandboxWarmPool itself (`warm_pool`).
     */
    templates: z
      .record(
        templateName(),
        z
          .object({ sandbox_template: objectName().optional(), warm_pool: objectName().optional() })
          .strict()
          .refine((entry) => Boolean(entry.sandbox_template) !== Boolean(entry.warm_pool), {
            message: 'give either sandbox_template or warm_pool, not both',
          }),
      )
      .default({}),
    /** The template of runs that name none (code_interpreter); one of `templates`. */
    default_template: templateName().optional(),
    /** The port of the sandbox server in each pod (POST /execute). */
    port: integer().pipe(z.number().min(1).max(65_535)).default(8888),
    /**
     * The agent-sandbox router (e.g. http://sandbox-router-svc.<ns>.svc:8080): calls go through it, addressed by
     * X-Sandbox-ID headers, instead of straight to the pod's IP.
     */
    router_url: z.url({ protocol: /^https?$/ }).optional(),
    /** How long a claim may take to become Ready; within sandbox.limits.wall_time, which bounds the whole run. */
    ready_timeout: duration().pipe(z.number().min(100, 'expected at least 100ms')).default(10_000),
    /**
     * How long a claim outlives its last run's wall time before the controller deletes it itself: what a crashed
     * replica left behind lives this long, and the sandbox a /v1/responses run shares lasts this long between calls.
     */
    idle_timeout: duration().pipe(z.number().min(10_000, 'expected at least 10s')).default(300_000),
    /** Each Kubernetes API request (create, delete, the start-up checks). */
    api_timeout: duration().pipe(z.number().min(100, 'expected at least 100ms')).default(10_000),
  })
  .strict()
  .refine((k8s) => !k8s.default_template || Object.hasOwn(k8s.templates, k8s.default_template), {
    message: 'default_template must be one of sandbox.kubernetes.templates',
    path: ['default_template'],
  })
  .prefault({});

export const configSchema = z
  .object({
    server: z
      .object({
        port: port().default(8080),
        host: text().default('0.0.0.0'),
        // Read by Express's body parsers, which refuse to start on anything else.
        body_limit: text()
          .pipe(z.string().regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb|tb|pb)?$/i, 'expected a size such as "512kb" or "1mb"'))
          .default('1mb'),
        shutdown_grace_period: duration().default(10_000),
        // Bodies, tool arguments and remote answers nested deeper are refused before anything walks them.
        max_json_depth: integer().pipe(z.number().min(8).max(1000)).default(64),
        /** A client's request headers must all arrive within this; then 408 and the connection is closed. */
        headers_timeout: duration().pipe(z.number().min(1000, 'expected at least 1s')).default(10_000),
        /** The whole request, headers and body (uploads too), must arrive within this; then 408 and closed. */
        body_timeout: duration().pipe(z.number().min(1000, 'expected at least 1s')).default(60_000),
        /** A kept-alive connection with no request in progress is closed after this. */
        idle_timeout: duration().pipe(z.number().min(1000, 'expected at least 1s')).default(5_000),
      })
      .strict()
      .refine((server) => server.headers_timeout <= server.body_timeout, {
        message: 'server.headers_timeout must not be longer than server.body_timeout (which includes the headers)',
        path: ['headers_timeout'],
      })
      .prefault({}),
    data_dir: text().default('./data'),
    database: z
      .object({
        url: optionalText(),
        // Start-up work holds one connection for its advisory lock while it queries on another: 1 would deadlock.
        pool_size: integer()
          .pipe(z.number().min(2, 'expected at least 2 (one connection holds the start-up lock)').max(200))
          .default(10),
        migrations_run: flag().default(true),
        statement_timeout: duration().default(30_000),
      })
      .strict()
      .prefault({}),
    auth: z
      .object({
        admin_tenant: text().default('default'),
        admin_api_key: text()
          .pipe(
            z
              .string()
              .regex(
                /^tg_[A-Za-z0-9_-]{21,}$/,
                'expected "tg_" followed by at least 21 letters, digits, "_" or "-" (e.g. tg_$(openssl rand -hex 16))',
              ),
          )
          .optional(),
        jwt: jwtSchema.prefault({}),
        oauth: oauthSchema.prefault({}),
      })
      .strict()
      .prefault({}),
    metrics: z
      .object({
        namespace: z
          .string()
          .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'expected a Prometheus name: letters, digits and underscores')
          .default('toolgate'),
        bearer_token: optionalText(),
      })
      .strict()
      .prefault({}),
    observability: z
      .object({
        /** OpenTelemetry traces over OTLP/HTTP; off (a no-op tracer) while otlp_endpoint is unset. */
        tracing: z
          .object({
            /** The collector's OTLP/HTTP traces URL, e.g. http://otel-collector:4318/v1/traces. */
            otlp_endpoint: z.url({ protocol: /^https?$/ }).optional(),
            service_name: text().default('toolgate'),
            /** Share of new traces recorded; a caller's sampled flag (traceparent) is followed either way. */
            sample_ratio: z
              .preprocess((v) => (typeof v === 'string' ? Number(v) : v), z.number().min(0).max(1))
              .default(1),
            /** How long finished spans wait to be exported in one batch, off the request path. */
            export_delay: duration().pipe(z.number().min(100, 'expected at least 100ms')).default(5_000),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    logging: z
      .object({ level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info') })
      .strict()
      .prefault({}),
    tools: z
      .object({
        default_timeout: duration().default(30_000),
        max_timeout: duration().default(300_000),
      })
      .strict()
      .prefault({}),
    /** Where `source.type: sandbox` tools run, and the limits every run gets (see src/tools/sandbox). */
    sandbox: z
      .object({
        /** local: bubblewrap on this host; kubernetes: agent-sandbox SandboxClaims; off: sandbox tools are refused. */
        runtime: z.enum(['local', 'kubernetes', 'off']).default('local'),
        /** Sandbox runs at once on this replica; further calls wait for a slot (within their timeout). */
        max_concurrency: integer().pipe(z.number().min(1).max(1000)).default(4),
        /** Tools that declare `network_external` get the host's network only when this is on. */
        allow_network_external: flag().default(false),
        limits: z
          .object({
            /** Wall-clock time of one run; keep it under tools.default_timeout so the run's own error is seen. */
            wall_time: duration().pipe(z.number().min(100, 'expected at least 100ms')).default(20_000),
            cpu_seconds: integer().pipe(z.number().min(1).max(86_400)).default(10),
            /** Address space of each process (RLIMIT_AS), in bytes. */
            memory_bytes: integer().pipe(z.number().min(16_777_216)).default(536_870_912),
            /** Processes and threads (RLIMIT_NPROC). */
            max_processes: integer().pipe(z.number().min(4).max(100_000)).default(64),
            /** Largest file a run may write (RLIMIT_FSIZE), in bytes. */
            max_file_bytes: integer().pipe(z.number().min(1024)).default(67_108_864),
            /** Largest stdout kept; more ends the run as failed. */
            max_output_bytes: integer().pipe(z.number().min(1024).max(67_108_864)).default(1_048_576),
          })
          .strict()
          .prefault({}),
        local: z
          .object({
            bwrap_path: text().default('bwrap'),
            prlimit_path: text().default('prlimit'),
            /**
             * When the service runs as root, the runs of each concurrency slot get their own unprivileged user,
             * first_uid + slot (no account needed), in this group: process limits count per user.
             */
            first_uid: integer().pipe(z.number().min(1000).max(4_294_000_000)).default(200_000),
            gid: integer().pipe(z.number().min(1).max(4_294_967_294)).default(65_534),
            /**
             * Host directory under which each sandbox gets its private work and files directories (the system's
             * temporary directory when unset); a filesystem of its own with a quota bounds what sandboxes can write.
             */
            work_root: optionalText(),
            /** Template name -> host directory, mounted read-only at /template (the tool's code and files). */
            templates: z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,255}$/), text()).default({}),
          })
          .strict()
          .prefault({}),
        kubernetes: kubernetesSandbox,
      })
      .strict()
      .prefault({}),
    audit: z
      .object({
        /** Extra argument/output keys whose values are replaced before storage (added to the built-in list). */
        redact_keys: z.array(z.string().min(1)).default([]),
        /** Output kept by `full` audit records, in bytes; `output_size` keeps the real size. */
        max_output_bytes: integer().pipe(z.number().min(256).max(1_048_576)).default(10_240),
        /** How often the retention job runs (one replica at a time). */
        retention_interval: duration().default(3_600_000),
      })
      .strict()
      .prefault({}),
    secrets: z
      .object({
        /**
         * Key material is checked (and never printed) by src/tools/catalog/credentials/encryption-keys.ts,
         * so a wrong value cannot reach a log through a schema error: base64 of 32 bytes.
         */
        encryption_key: z.unknown().optional(),
        /** A mounted file holding the key: base64 text or 32 raw bytes. */
        encryption_key_file: optionalText(),
        /** Earlier keys (a list, or comma-separated), still used to read rows not yet re-encrypted. */
        previous_keys: z.unknown().optional(),
        previous_key_files: z
          .union([
            z.array(text()),
            text().transform((v) =>
              v
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean),
            ),
          ])
          .default([]),
        /** Directory of source-level secrets, one file per secret_ref (how Kubernetes mounts Secrets). */
        dir: optionalText(),
        /** A secret that a configured tool or source references but that is missing stops start-up. */
        strict_secrets: flag().default(false),
      })
      .strict()
      .prefault({}),
    catalog: z
      .object({
        /** Tools scoring below this need a human review: they cannot be created approved or be auto-approved. */
        mandatory_review_threshold: integer().pipe(z.number().min(0).max(100)).default(70),
        /** When set, new tools scoring at least this much are approved automatically. Off by default. */
        auto_approve_score: integer().pipe(z.number().min(0).max(100)).optional(),
        /**
         * Longest tool description accepted, in characters, at registration and from MCP discovery: the automated
         * review reads every character, so this bounds its cost.
         */
        max_description_length: integer().pipe(z.number().min(256).max(1_048_576)).default(16_384),
        /** Largest input or output schema accepted, in bytes of JSON, at registration and from MCP discovery. */
        max_schema_bytes: integer().pipe(z.number().min(1024).max(4_194_304)).default(131_072),
        /** What happens to MCP results that read like instructions to the model, unless the tool says otherwise. */
        output_scan: z.enum(['off', 'flag', 'block']).default('flag'),
        /** Characters of a result's text that are scanned; text beyond is not read. */
        output_scan_max_chars: integer().pipe(z.number().min(1024).max(1_048_576)).default(65_536),
        /**
         * Arguments carrying a credential format (private key, cloud or SaaS token, JWT, connection string with a
         * password, high-entropy value in a secret-named field), unless the tool says otherwise: `flag` passes the
         * call on marked, `block` refuses it (`secret_in_arguments`), `off` does not look.
         */
        argument_scan: z.enum(['off', 'flag', 'block']).default('flag'),
        /** Arguments carrying the value of a secret Toolgate stores (tenant credentials, source secrets, API keys). */
        argument_scan_stored: z.enum(['off', 'flag', 'block']).default('block'),
        /** Secrets in tool results: `flag` marks the call, `redact` replaces them before they reach the model. */
        result_secret_scan: z.enum(['off', 'flag', 'redact']).default('flag'),
        /**
         * A sensitive value out of one call's result (a credential-shaped string, anything a `secret_access` tool
         * returned) that shows up in the arguments of a `network_external` tool later in the same chain of calls.
         */
        chained_exfiltration: z.enum(['off', 'flag', 'block']).default('flag'),
        /** Characters of a call's strings that secret scanning reads (arguments and results, each). */
        secret_scan_max_chars: integer().pipe(z.number().min(1024).max(16_777_216)).default(1_048_576),
        review: z
          .object({
            /**
             * Whether the learned sentence model (src/tools/catalog/review/model) scores definitions beside the
             * rule checks. On by default; off leaves the rule checks alone (fewer false positives, fewer catches).
             */
            sentence_model: z.boolean().default(true),
            /**
             * Whether the pretrained sentence encoder (src/tools/catalog/review/encoder) reads every new or changed
             * definition in a worker thread after it is stored, adding a finding like the sentence model's. About
             * 130 ms of CPU per definition and 130-250 MB of memory while loaded; off never loads the model.
             */
            encoder: z.boolean().default(true),
            /** An OpenAI-compatible chat model that also judges every new or changed definition. Off when unset. */
            judge: z
              .object({
                /** Base URL of the Chat Completions API: `<url>/chat/completions` is called. */
                url: z.url(),
                model: text(),
                /** Environment variable or file in secrets.dir holding the API key; none sent when unset. */
                secret_ref: optionalText(),
                /** Longest one judgement may take; a slower answer counts as a failure (the tool stays pending). */
                timeout: duration().default(30_000),
              })
              .strict()
              .optional(),
            /**
             * Without `judge`, the model behind /v1/responses (`engine.upstream`, when its URL and a model name are
             * set) judges definitions; false keeps the judge off unless `judge` names one.
             */
            judge_with_engine_upstream: z.boolean().default(true),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    mcp: z
      .object({
        /** Longest a discovery (connect + tools/list, all pages) of one server may take. */
        discovery_timeout: duration().default(15_000),
        /** How often each replica looks for sources due for refresh. */
        refresh_tick: duration().default(5_000),
        /** Private ranges (in-cluster servers) are allowed by default; link-local/metadata addresses are not. */
        allow_private_networks: flag().default(true),
        allow_link_local: flag().default(false),
        /** Receives a JSON POST when a reviewed or approved MCP tool changes on its server. */
        schema_change_webhook_url: z.url().optional(),
        /** Pooled client connections unused this long are closed. */
        idle_client_timeout: duration().default(300_000),
        /**
         * Before each call the server's tools/list is compared with the approved definition; a listing may be
         * reused on the same connection for this long (0: list before every call, no window for a change).
         */
        definition_check_max_age: duration().default(0),
        /**
         * Largest message read from an MCP server (a tools/call result, a listing), in bytes: checked while it is
         * read, so a larger one fails its call without being buffered whole.
         */
        max_result_bytes: integer().pipe(z.number().min(1024).max(1_073_741_824)).default(10_485_760),
      })
      .strict()
      .prefault({}),
    /** What MCP clients see of the gateway: the /mcp endpoint and the MCP Registry API (/v0.1/servers). */
    gateway: z
      .object({
        /** Registry names are reverse-DNS: source `github` is served as `<registry_namespace>/github`. */
        registry_namespace: text()
          .pipe(
            z
              .string()
              .regex(
                /^[a-zA-Z0-9][a-zA-Z0-9.-]{0,99}$/,
                'expected a reverse-DNS namespace such as "local.toolgate" or "com.example.tools"',
              ),
          )
          .default('local.toolgate'),
        /** Base URL clients reach this service at (behind a proxy); when unset, taken from the request's Host. */
        public_url: z.url().optional(),
        /**
         * Browser Origins allowed on /mcp besides this host's own, and served CORS there, on /.well-known/* and on
         * the authorization server's /register and /token; requests without Origin always pass.
         */
        allowed_origins: z.array(z.string().max(2048)).max(1000).default([]),
        /** Above this many effective tools, /mcp lists search_tools and call_tool instead (clients cap tools). */
        max_listed_tools: integer().pipe(z.number().min(1).max(100_000)).default(100),
        /**
         * How long a 2026-07-28 client may keep a tools/list answer (its ttlMs). Short, because approvals and
         * quarantines change the list; a client listening with subscriptions/listen hears of changes at once.
         */
        tools_list_ttl: duration().pipe(z.number().min(0).max(86_400_000)).default(60_000),
        /**
         * How long a 2026-07-28 client has to answer an upstream tool's input requests: the gateway's requestState
         * expires after it, and the retry is refused.
         */
        input_request_ttl: duration().pipe(z.number().min(10_000).max(86_400_000)).default(600_000),
      })
      .strict()
      .prefault({}),
    /** The agent loop behind /v1/responses: off until `upstream.url` names an OpenAI-compatible model server. */
    engine: z
      .object({
        upstream: z
          .object({
            /** Base URL of an OpenAI-compatible API (its `/chat/completions` is called), e.g. http://vllm:8000/v1. */
            url: z
              .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as http://vllm:8000/v1' })
              .optional(),
            /**
             * The upstream model: one name for every request, or a map from requested model names to upstream
             * ones (`"*"` matches any other name). Unset: the requested name is sent as it is.
             */
            model: z.union([z.string().min(1), z.record(z.string().min(1), z.string().min(1))]).optional(),
            /** A file holding the upstream API key (a mounted secret); otherwise ENGINE_UPSTREAM_API_KEY, if set. */
            api_key_file: z.string().min(1).optional(),
            /** Longest one upstream request (a model turn) may take. */
            timeout: duration().pipe(z.number().min(1, 'must be longer than 0')).default(120_000),
          })
          .strict()
          .prefault({}),
        /** Model turns one response may take before it ends `incomplete`. */
        max_iterations: integer().pipe(z.number().min(1).max(100)).default(10),
        /** Server-side tool runs one response may make when the request sets no max_tool_calls. */
        max_tool_calls: integer().pipe(z.number().min(1).max(1000)).default(64),
        /** A background response whose replica stops renewing its lease this long is marked failed. */
        background_lease: duration().pipe(z.number().min(1000, 'expected at least 1s')).default(30_000),
      })
      .strict()
      .prefault({}),
    /** Trusted MCP servers listed by the operator: discovered like API-registered ones, their tools approved. */
    mcp_servers: z
      .array(
        z
          .object({
            name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'expected lowercase letters, digits and "-"'),
            url: z.url().optional(),
            transport: z.enum(['auto', 'streamable_http', 'sse', 'stdio']).optional(),
            command: z.string().min(1).optional(),
            args: z.array(z.string()).default([]),
            env: z.record(z.string(), z.string()).optional(),
            /** Variables copied from Toolgate's own environment into a stdio server's (besides a minimal default set). */
            inherit_env: z
              .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected environment variable names'))
              .default([]),
            cwd: z.string().optional(),
            auth: z
              .object({
                type: z.enum(['none', 'api_key', 'bearer']),
                secret_ref: z.string().optional(),
                header: z.string().optional(),
              })
              .strict()
              .optional(),
            refresh_interval: duration().default(3_600_000),
            default_audit_level: z.enum(['none', 'basic', 'full']).default('basic'),
            /** `upstream`: tools keep their server's names where no other tool holds them (else `<source>-<tool>`). */
            tool_names: z.enum(['prefixed', 'upstream']).default('prefixed'),
          })
          .strict()
          .refine(
            (server) => Boolean(server.url) !== Boolean(server.command),
            'give either url (HTTP) or command (stdio), not both',
          ),
      )
      .default([]),
    /** One section per built-in provider (`builtins.<name>.enabled`); see src/tools/builtins. */
    builtins: z.record(z.string(), z.object({ enabled: flag().optional() }).passthrough()).prefault({}),
  })
  .strict();

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
