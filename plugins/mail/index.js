// The mail notification type: one message per notification to the service's addresses,
// through the SMTP server of the config file (`notifications.mail`), multipart text and
// HTML, in the shape of Librato's mail service (subjects, Markdown-like text body).
import { readFileSync } from 'node:fs';

const ADDRESS = /^[^\s@,<>"]+@[^\s@,<>"]+\.[^\s@,<>"]+$|^[^\s@,<>"]+@localhost$/;

/** @param {unknown} addresses */
export function recipients(addresses) {
  return String(addresses).split(',').map((a) => a.trim()).filter(Boolean);
}

const utc = (t) => {
  const d = new Date(t * 1000);
  const day = d.toLocaleDateString('en-US', { weekday: 'short', month: 'short', day: '2-digit', year: 'numeric', timeZone: 'UTC' }).replace(/,/g, '');
  const [weekday, month, date, year] = day.split(' ');
  return `${weekday}, ${month} ${date} ${year} at ${d.toISOString().slice(11, 19)} UTC`;
};

/** @param {import('../../src/notifiers/plugin.js').Notification} n */
export function subject(n) {
  if (n.kind === 'clear') return `[Gaugeway] Alert ${n.alert.name} has cleared.`;
  return `[Gaugeway]${n.triggered_by_user_test ? ' [Test]' : ''} Alert ${n.alert.name} has triggered!`;
}

/**
 * The text body, line by line (the HTML body renders the same lines).
 * @param {import('../../src/notifiers/plugin.js').Notification} n
 * @param {string | null} externalUrl
 */
export function bodyLines(n, externalUrl) {
  const lines = [];
  if (n.triggered_by_user_test) lines.push('This is a test alert notification, no action is required.', '');
  if (n.kind === 'clear') {
    const how = n.clear === 'manual' ? ' (cleared by hand)' : n.clear === 'auto' ? ' (no data for 10 days)' : '';
    lines.push(`# Alert ${n.alert.name} has cleared at ${utc(n.time)}${how}`);
  } else {
    lines.push(`# Alert ${n.alert.name} has triggered!`);
  }
  lines.push('');
  if (n.alert.description) lines.push(`Description: ${n.alert.description}`);
  lines.push(`Account: ${n.account}`);
  if (externalUrl && n.alert.id) lines.push(`Link: ${externalUrl.replace(/\/+$/, '')}/alerts/${n.alert.id}`);
  if (n.kind === 'trigger') {
    const conditions = new Map(n.conditions.map((c) => [c.id, c]));
    for (const [stream, violations] of Object.entries(n.violations)) {
      lines.push('', `Source \`${stream}\`:`);
      for (const v of violations) {
        const c = conditions.get(v.condition_violated);
        if (c?.type === 'absent') lines.push(`* metric \`${v.metric}\` was absent for ${c.duration} seconds`);
        else {
          const over = v.begin !== undefined && v.end !== undefined ? ` over ${v.end - v.begin} seconds` : '';
          lines.push(`* metric \`${v.metric}\` was ${c?.type ?? 'above'} threshold ${c?.threshold ?? ''}${over} with value ${v.value} recorded at ${utc(v.recorded_at)}`);
        }
      }
    }
  }
  if (n.alert.runbook_url) lines.push('', `Runbook: ${n.alert.runbook_url}`);
  return lines;
}

const escape = (s) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

/** @param {string[]} lines */
export function html(lines) {
  const inline = (s) => escape(s).replace(/`([^`]+)`/g, '<code>$1</code>').replace(/(https?:\/\/[^\s<]+)/g, '<a href="$1">$1</a>');
  const out = [];
  let list = false;
  for (const line of lines) {
    if (line.startsWith('* ')) {
      if (!list) out.push('<ul>');
      list = true;
      out.push(`<li>${inline(line.slice(2))}</li>`);
      continue;
    }
    if (list) out.push('</ul>');
    list = false;
    if (line.startsWith('# ')) out.push(`<h1 style="font-size:20px">${inline(line.slice(2))}</h1>`);
    else if (line) out.push(`<p>${inline(line)}</p>`);
  }
  if (list) out.push('</ul>');
  return `<!doctype html><html><body style="font-family:sans-serif;color:#222">${out.join('\n')}
<hr><p style="color:#777;font-size:12px">Sent by Gaugeway, your metrics appliance.</p></body></html>`;
}

/**
 * What the server refused of a message it took: `the SMTP server refused 1 of 2 recipients:
 * bad@example.com (550 ...)`, or undefined.
 * @param {{ rejected?: unknown[], rejectedErrors?: { recipient?: string, response?: string }[] }} info
 * @param {number} total
 */
export function refusedNote(info, total) {
  const refused = info.rejected ?? [];
  if (refused.length === 0) return undefined;
  const why = new Map((info.rejectedErrors ?? []).map((e) => [e.recipient, e.response]));
  const list = refused.map((r) => {
    const response = why.get(String(r));
    return response ? `${r} (${response.slice(0, 200)})` : String(r);
  });
  return `the SMTP server refused ${refused.length} of ${total} recipients: ${list.join('; ')}`;
}

/** @type {import('../../src/notifiers/plugin.js').NotificationPlugin} */
export default {
  type: 'mail',
  check(settings) {
    if (typeof settings.addresses !== 'string') return { addresses: ['Must be a comma-separated string'] };
    const list = recipients(settings.addresses);
    if (list.length === 0) return { addresses: ['Is required'] };
    const bad = list.filter((a) => !ADDRESS.test(a));
    return bad.length ? { addresses: bad.map((a) => `Not a valid email address: ${a}`) } : null;
  },
  async send(n, settings, ctx) {
    const c = ctx.config;
    if (!c.host) throw new Error('no SMTP server is configured (notifications.mail.host)');
    // loaded at the first message, not with the plugin: the registry loads every plugin at
    // start, and nodemailer's modules took about 0.1 s of every start of the service
    const { default: nodemailer } = await import('nodemailer');
    const transport = nodemailer.createTransport({
      host: String(c.host), port: Number(c.port), secure: c.secure === true,
      requireTLS: c.starttls === 'required', ignoreTLS: c.starttls === 'never',
      auth: c.user ? { user: String(c.user), pass: String(c.password ?? '') } : undefined,
      tls: c.ca_file ? { ca: readFileSync(String(c.ca_file)) } : undefined,
      connectionTimeout: ctx.timeoutMs, greetingTimeout: ctx.timeoutMs, socketTimeout: ctx.timeoutMs,
    });
    // nodemailer takes no signal: closing the transport ends the exchange (sendMail rejects)
    const abort = () => transport.close();
    ctx.signal.addEventListener('abort', abort, { once: true });
    try {
      const lines = bodyLines(n, ctx.externalUrl);
      const info = await transport.sendMail({
        from: String(c.from), to: recipients(settings.addresses), subject: subject(n),
        text: lines.join('\n'), html: html(lines),
        headers: { 'X-Gaugeway-Idempotency-Key': ctx.idempotencyKey },
      }).catch((err) => {
        // a 5xx refusal of the recipients or the message is final: a retry gets it again.
        // Connection and login failures are retried: the operator may fix notifications.mail
        if (err.responseCode >= 500 && (err.code === 'EENVELOPE' || err.code === 'EMESSAGE')) err.permanent = true;
        throw err;
      });
      // sent to the others: a delivery, with the refused ones noted (when the server refuses
      // every recipient, sendMail throws and the delivery fails)
      return refusedNote(info, recipients(settings.addresses).length);
    } finally {
      ctx.signal.removeEventListener('abort', abort);
      transport.close();
    }
  },
};
