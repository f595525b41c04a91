import type { MachineAuthorizationRecord } from '@app/contracts';

import { DISPLAY_ID_MAX, DISPLAY_NAME_MAX, escapeHtml, sanitizeForDisplay } from '../machine-authorization/display';

export const APPROVAL_BASE = '/machine-approval';

const STYLE = `body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}
code,.code{font-family:ui-monospace,monospace;font-size:1.6rem;letter-spacing:.15rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem}dt{color:#666}
button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.5rem}input{font-size:1rem;padding:.4rem;width:100%}
.error{color:#a00}.note{color:#555}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin"><title>${escapeHtml(title)} · svc</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

const codePath = (code: string) => `${APPROVAL_BASE}/${encodeURIComponent(code)}`;

export function signInPage(code: string | null, error?: string): string {
  return page(
    'Connect a machine',
    `${error ? `<p class="error">${escapeHtml(error)}</p>` : ''}
<p>Sign in with your svc API token to review the machine${code ? ` showing <span class="code">${escapeHtml(code)}</span>` : ''}.</p>
<form method="post" action="${APPROVAL_BASE}/session">
<label for="token">API token</label><input id="token" name="token" type="password" autocomplete="off" required>
${code ? `<input type="hidden" name="code" value="${escapeHtml(code)}">` : ''}
<p><button type="submit">Sign in</button></p></form>`,
  );
}

export function codeEntryPage(actorName: string, csrf: string, error?: string): string {
  return page(
    'Connect a machine',
    `${error ? `<p class="error">${escapeHtml(error)}</p>` : ''}
<p>Signed in as ${escapeHtml(sanitizeForDisplay(actorName, DISPLAY_NAME_MAX))}. Enter the code your machine shows.</p>
<form method="get" action="${APPROVAL_BASE}"><label for="code">Code</label>
<input id="code" name="code" autocomplete="off" placeholder="BCDF-GHJK" required>
<p><button type="submit">Continue</button></p></form>${signOutForm(csrf)}`,
  );
}

function signOutForm(csrf: string): string {
  return `<form method="post" action="${APPROVAL_BASE}/sign-out"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<button type="submit">Sign out</button></form>`;
}

export function reviewPage(actorName: string, record: MachineAuthorizationRecord, csrf: string): string {
  const name = escapeHtml(sanitizeForDisplay(record.machine_name, DISPLAY_NAME_MAX));
  const id = escapeHtml(sanitizeForDisplay(record.machine_id, DISPLAY_ID_MAX));
  const decide =
    record.decision === 'pending'
      ? `<p>Approve only if this is <strong>your own machine</strong> and it shows exactly this code.
It will act as ${escapeHtml(sanitizeForDisplay(actorName, DISPLAY_NAME_MAX))}.</p>
<form method="post" action="${codePath(record.code)}/decision"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<button type="submit" name="action" value="approve">Approve</button>
<button type="submit" name="action" value="deny">Deny</button></form>`
      : `<p class="note">This code is ${escapeHtml(record.decision)}.</p>`;
  return page(
    'Connect a machine',
    `<dl><dt>Code</dt><dd class="code">${escapeHtml(record.code)}</dd><dt>Machine</dt><dd>${name}</dd>
<dt>Machine id</dt><dd>${id}</dd><dt>Expires</dt><dd>${escapeHtml(record.expires_at)}</dd></dl>${decide}${signOutForm(csrf)}`,
  );
}

export function decidedPage(code: string, decision: 'approved' | 'denied'): string {
  return page(
    decision === 'approved' ? 'Machine approved' : 'Machine denied',
    `<p>Code <span class="code">${escapeHtml(code)}</span> is ${decision}.${
      decision === 'approved' ? ' The machine receives its credential at its next poll; you can close this page.' : ''
    }</p>`,
  );
}

export function errorPage(status: number, code: string, message: string): string {
  return page(
    status === 401 ? 'Sign-in needed' : 'Cannot continue',
    `<p class="error">${escapeHtml(message)}</p><p class="note">(${escapeHtml(code)})</p>
<p><a href="${APPROVAL_BASE}">Start again</a></p>`,
  );
}
