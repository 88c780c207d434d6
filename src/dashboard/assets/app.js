// lead-intake dashboard: progressive enhancement only. Every page works without this file.
(() => {
  // Copy buttons: <button data-copy="element-id" hidden> is shown once we can copy. The element is an input or
  // textarea (its value), a link (its address) or any other element (its text).
  const textToCopy = (element) => {
    if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) return element.value;
    if (element instanceof HTMLAnchorElement) return element.href;
    return element.textContent ?? '';
  };
  const selectText = (element) => {
    if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) {
      element.focus();
      element.select();
      return;
    }
    const range = document.createRange();
    range.selectNodeContents(element);
    const selection = window.getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
  };
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      const input = document.getElementById(button.dataset.copy);
      const status = document.querySelector(`[data-copy-status="${button.dataset.copy}"]`);
      if (!input) return;
      let copied = false;
      try {
        await navigator.clipboard.writeText(textToCopy(input));
        copied = true;
      } catch {
        selectText(input);
        copied = document.execCommand?.('copy') ?? false;
      }
      if (status) status.textContent = copied ? 'Copied.' : 'Press Ctrl+C (⌘C on a Mac) to copy.';
      if (copied) button.textContent = 'Copied';
    });
  }

  // Forms with data-confirm ask first.
  document.addEventListener('submit', (event) => {
    const form = event.target;
    const message = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
    if (message && !window.confirm(message)) event.preventDefault();
  });
})();
