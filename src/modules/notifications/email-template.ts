/** The service's email template: one HTML message with a plain-text part. Every interpolated value is escaped. */

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

export function renderEmail(input: {
  messName: string;
  title: string;
  content: string;
  footer?: string;
}): RenderedEmail {
  const messName = input.messName.trim() || 'Hostel Mess';
  const footer =
    input.footer ??
    'You receive this because of your notification preferences in the mess app, where you can change them.';
  // Header values cannot carry line breaks.
  const subject = `${messName}: ${input.title}`.replace(/[\r\n]+/g, ' ');
  const paragraphs = input.content
    .split(/\n{2,}/)
    .map((p) => `<p style="margin:0 0 12px">${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('');
  const html = [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${escapeHtml(input.title)}</title></head>`,
    '<body style="margin:0;padding:24px;background:#f4f5f7;font-family:Arial,Helvetica,sans-serif;color:#1f2933">',
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px">',
    `<tr><td style="padding:16px 24px;background:#2f6f4f;color:#ffffff;border-radius:8px 8px 0 0;font-size:14px">${escapeHtml(messName)}</td></tr>`,
    `<tr><td style="padding:24px"><h1 style="margin:0 0 16px;font-size:20px">${escapeHtml(input.title)}</h1>${paragraphs}</td></tr>`,
    `<tr><td style="padding:12px 24px;color:#6b7280;font-size:12px;border-top:1px solid #e5e7eb">${escapeHtml(footer)}</td></tr>`,
    '</table></body></html>',
  ].join('');
  const text = `${input.title}\n\n${input.content}\n\n--\n${messName}\n${footer}\n`;
  return { subject, html, text };
}
