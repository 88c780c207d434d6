// Text as HTML: the five characters that could start markup or end an attribute, escaped. Used by the dashboard's
// html`` template and by the HTML parts of mails, which are built from strings.

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}
