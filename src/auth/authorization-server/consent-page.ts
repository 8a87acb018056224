/** What the consent page shows and posts back. */
export interface ConsentView {
  clientName: string | null;
  clientId: string;
  redirectHost: string;
  /** The authorization request's parameters, posted back unchanged and checked again. */
  hidden: Record<string, string>;
  csrfToken: string;
  /** Shown above the form after a refused API key. */
  error?: string;
}

/** Text for HTML element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2328}
h1{font-size:1.3rem}code{background:#f0f0f0;padding:0 .2rem}label{display:block;margin:1rem 0 .3rem}
input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}.error{color:#b00020}
button{margin:1rem .5rem 0 0;padding:.4rem 1rem}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>`;
}

/**
 * The page where a user lets an MCP client act for them: it names the client and where the browser goes next,
 * and takes a Toolgate API key, whose tenant and role the client's tokens then carry.
 */
export function consentPage(view: ConsentView): string {
  const name = view.clientName ?? view.clientId;
  const fields = Object.entries(view.hidden)
    .map(([key, value]) => `<input type="hidden" name="${escapeHtml(key)}" value="${escapeHtml(value)}">`)
    .join('\n');
  return page(
    'Authorize access to Toolgate',
    `<h1>Authorize <code>${escapeHtml(name)}</code></h1>
<p>This application asks to use your Toolgate tools through the MCP gateway. After you approve, your browser
returns to <code>${escapeHtml(view.redirectHost)}</code>.</p>
${view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : ''}
<form method="post" action="/authorize">
${fields}
<input type="hidden" name="csrf_token" value="${escapeHtml(view.csrfToken)}">
<label for="api_key">Your Toolgate API key (<code>tg_…</code>); the application acts with its tenant and role</label>
<input type="password" id="api_key" name="api_key" autocomplete="off" required>
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</form>`,
  );
}

/** A request that cannot be sent back to the client (unknown client, unregistered redirect URI). */
export function errorPage(message: string): string {
  return page('Authorization failed', `<h1>Authorization failed</h1><p>${escapeHtml(message)}</p>`);
}
