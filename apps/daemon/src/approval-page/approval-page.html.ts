import type { MachineAuthorizationRecord } from '@app/contracts';

import { DISPLAY_ID_MAX, DISPLAY_NAME_MAX, escapeHtml, sanitizeForDisplay } from '../machine-authorization/display';

export const APPROVAL_BASE = '/machine-approval';
export const OIDC_START_PATH = `${APPROVAL_BASE}/oidc/start`;

const STYLE = `body{font-family:system-ui,sans-serif;max-width:38rem;margin:0 auto;padding:0 1rem 3rem;color:#222}
header{display:flex;justify-content:space-between;align-items:center;gap:1rem;border-bottom:1px solid #ddd;
padding:.8rem 0;margin-bottom:1.5rem;font-size:.9rem;color:#555}header form{margin:0}
header button{font-size:.85rem;padding:.25rem .7rem;background:none;border:1px solid #bbb;border-radius:4px;cursor:pointer}
code,.code{font-family:ui-monospace,monospace;font-size:1.6rem;letter-spacing:.15rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem}dt{color:#666}
button{font-size:1rem;padding:.55rem 1.3rem;border-radius:4px;cursor:pointer}
input{font-size:1rem;padding:.4rem;width:100%;box-sizing:border-box}
.primary{background:#1f6f3f;color:#fff;border:1px solid #1f6f3f;font-weight:600}
.secondary{background:#fff;color:#a02020;border:1px solid #c99}
.decide{display:flex;gap:1rem;margin-top:1.2rem}.or{color:#777;margin:1.2rem 0 .6rem}
.company{display:inline-block;padding:.55rem 1.3rem;border:1px solid #888;border-radius:4px;color:#222;text-decoration:none}
.error{color:#a00}.note{color:#555}`;

export interface PageContext {
  server: string;
  organization: string | null;
  actor?: { name: string; csrf: string };
}

function header(ctx: PageContext): string {
  const where = `<span><strong>${escapeHtml(ctx.server)}</strong>${
    ctx.organization ? ` · organization <strong>${escapeHtml(ctx.organization)}</strong>` : ''
  }</span>`;
  const who = ctx.actor
    ? `<span>${escapeHtml(sanitizeForDisplay(ctx.actor.name, DISPLAY_NAME_MAX))}
<form method="post" action="${APPROVAL_BASE}/sign-out" style="display:inline"><input type="hidden" name="csrf" value="${escapeHtml(ctx.actor.csrf)}">
<button type="submit" class="signout">Sign out</button></form></span>`
    : '';
  return `<header>${where}${who}</header>`;
}

function page(ctx: PageContext, title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin">${head}<title>${escapeHtml(title)} · svc</title><style>${STYLE}</style></head>
<body>${header(ctx)}<h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

const codePath = (code: string) => `${APPROVAL_BASE}/${encodeURIComponent(code)}`;

// "in 7 min", "in 40 s", "2 min ago": coarse on purpose, the exact time is in the title attribute.
export function relativeTime(target: Date, now: Date): string {
  const seconds = Math.round((target.getTime() - now.getTime()) / 1000);
  const abs = Math.abs(seconds);
  const amount = abs < 60 ? `${abs} s` : abs < 3600 ? `${Math.round(abs / 60)} min` : `${Math.round(abs / 3600)} h`;
  return seconds >= 0 ? `in ${amount}` : `${amount} ago`;
}

export function signInPage(
  ctx: PageContext,
  code: string | null,
  options: { error?: string; companySignIn?: string | null } = {},
): string {
  const hidden = code ? `<input type="hidden" name="code" value="${escapeHtml(code)}">` : '';
  const company = options.companySignIn
    ? `<p><a class="company" href="${OIDC_START_PATH}${code ? `?code=${encodeURIComponent(code)}` : ''}">Sign in with ${escapeHtml(
        options.companySignIn,
      )}</a></p>
<p class="or">or with an API token</p>`
    : '';
  return page(
    ctx,
    'Connect a machine',
    `${options.error ? `<p class="error">${escapeHtml(options.error)}</p>` : ''}
<p>Sign in to review the machine${code ? ` showing <span class="code">${escapeHtml(code)}</span>` : ''}.</p>
${company}<form method="post" action="${APPROVAL_BASE}/session">
<label for="token">API token</label><input id="token" name="token" type="password" autocomplete="off" required>
${hidden}
<p><button type="submit" class="primary">Sign in</button></p></form>`,
  );
}

export function codeEntryPage(ctx: PageContext, options: { error?: string; code?: string } = {}): string {
  return page(
    ctx,
    'Connect a machine',
    `${options.error ? `<p class="error">${escapeHtml(options.error)}</p>` : ''}
<p>Enter the code your machine shows (spaces and lower case are fine).</p>
<form method="get" action="${APPROVAL_BASE}"><label for="code">Code</label>
<input id="code" name="code" autocomplete="off" placeholder="BCDF-GHJK" required${
      options.code ? ` value="${escapeHtml(options.code)}"` : ''
    }>
<p><button type="submit" class="primary">Continue</button></p></form>`,
  );
}

export interface ReviewDetails {
  requestedFrom: string;
  requestedAt: Date;
  now: Date;
}

export function reviewPage(
  ctx: PageContext & { actor: { name: string; csrf: string } },
  record: MachineAuthorizationRecord,
  details: ReviewDetails,
): string {
  const name = escapeHtml(sanitizeForDisplay(record.machine_name, DISPLAY_NAME_MAX));
  const id = escapeHtml(sanitizeForDisplay(record.machine_id, DISPLAY_ID_MAX));
  const expires = new Date(record.expires_at);
  const decide =
    record.decision === 'pending'
      ? `<p>Approve only if this is <strong>your own machine</strong> and it shows exactly this code, name and id.
It will act as ${escapeHtml(sanitizeForDisplay(ctx.actor.name, DISPLAY_NAME_MAX))}.</p>
<form method="post" action="${codePath(record.code)}/decision"><input type="hidden" name="csrf" value="${escapeHtml(ctx.actor.csrf)}">
<div class="decide"><button type="submit" name="action" value="approve" class="primary">Approve</button>
<button type="submit" name="action" value="deny" class="secondary">Deny</button></div></form>`
      : `<p class="note">This code is ${escapeHtml(record.decision)}.</p>`;
  return page(
    ctx,
    'Connect a machine',
    `<dl><dt>Code</dt><dd class="code">${escapeHtml(record.code)}</dd><dt>Machine</dt><dd>${name}</dd>
<dt>Machine id</dt><dd>${id}</dd>
<dt>Requested from</dt><dd>${escapeHtml(details.requestedFrom)}</dd>
<dt>Requested</dt><dd title="${escapeHtml(details.requestedAt.toISOString())}">${escapeHtml(relativeTime(details.requestedAt, details.now))}</dd>
<dt>Expires</dt><dd title="${escapeHtml(record.expires_at)}">${
      expires > details.now ? `expires ${escapeHtml(relativeTime(expires, details.now))}` : 'expired'
    }</dd></dl>${decide}`,
  );
}

export function decidedPage(ctx: PageContext, code: string, decision: 'approved' | 'denied'): string {
  return page(
    ctx,
    decision === 'approved' ? 'Machine approved' : 'Machine denied',
    `<p>Code <span class="code">${escapeHtml(code)}</span> is ${decision}.${
      decision === 'approved' ? ' The machine receives its credential at its next poll; you can close this page.' : ''
    }</p>`,
  );
}

// After company sign-in: the session cookie is SameSite=Strict, which a browser does not send on the redirect
// chain that started at the provider; a same-origin refresh from this page carries it.
export function signedInPage(ctx: PageContext, next: string): string {
  const target = escapeHtml(next);
  return page(
    ctx,
    'Signed in',
    `<p>Signed in. <a href="${target}">Continue</a></p>`,
    `<meta http-equiv="refresh" content="0;url=${target}">`,
  );
}

export function errorPage(ctx: PageContext, status: number, code: string, message: string): string {
  return page(
    ctx,
    status === 401 ? 'Sign-in needed' : 'Cannot continue',
    `<p class="error">${escapeHtml(message)}</p><p class="note">(${escapeHtml(code)})</p>
<p><a href="${APPROVAL_BASE}">Start again</a></p>`,
  );
}
