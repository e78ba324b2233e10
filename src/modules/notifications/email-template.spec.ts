import { escapeHtml, renderEmail } from './email-template';

describe('renderEmail', () => {
  it('escapes every interpolated value and keeps a plain-text part', () => {
    const email = renderEmail({
      messName: 'Mess <A&B>',
      title: 'Menu "changed" <script>alert(1)</script>',
      content: "Dal & rice\nPaneer <b>tikka</b>\n\nIt's on",
    });
    expect(email.html).not.toContain('<script>');
    expect(email.html).not.toContain('<b>tikka');
    expect(email.html).toContain('Menu &quot;changed&quot; &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(email.html).toContain('Dal &amp; rice<br>Paneer &lt;b&gt;tikka&lt;/b&gt;');
    expect(email.html).toContain('It&#39;s on');
    expect(email.html).toContain('Mess &lt;A&amp;B&gt;');
    expect(email.text).toBe(
      'Menu "changed" <script>alert(1)</script>\n\nDal & rice\nPaneer <b>tikka</b>\n\nIt\'s on\n\n--\nMess <A&B>\n' +
        'You receive this because of your notification preferences in the mess app, where you can change them.\n',
    );
    expect(email.subject).toBe('Mess <A&B>: Menu "changed" <script>alert(1)</script>');
  });

  it('keeps line breaks out of the subject', () => {
    expect(renderEmail({ messName: 'M', title: 'a\r\nBcc: x@y.z', content: '' }).subject).toBe(
      'M: a Bcc: x@y.z',
    );
  });

  it('escapes the five HTML characters', () => {
    expect(escapeHtml(`<>&"'`)).toBe('&lt;&gt;&amp;&quot;&#39;');
  });
});
