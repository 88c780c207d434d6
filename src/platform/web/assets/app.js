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
      // The page's language: the layout puts these sentences on <body> (English when a page has none).
      const say = document.body.dataset;
      if (status) {
        status.textContent = copied
          ? (say.msgCopied ?? 'Copied.')
          : (say.msgCopyManually ?? 'Press Ctrl+C (⌘C on a Mac) to copy.');
      }
      if (copied) button.textContent = say.msgCopiedButton ?? 'Copied';
    });
  }

  // Forms with data-confirm ask first.
  document.addEventListener('submit', (event) => {
    const form = event.target;
    const message = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
    if (message && !window.confirm(message)) event.preventDefault();
  });

  // New lead: as the email or phone is typed, say which customer the lead will be added to (the server decides by
  // the same rules as saving). Without this the form works the same; the lead page shows the customer after saving.
  for (const form of document.querySelectorAll('form[data-customer-match]')) {
    const output = document.getElementById('customer-match');
    const email = form.querySelector('#field-email');
    const phone = form.querySelector('#field-phone');
    const country = form.querySelector('#field-country');
    if (!output || !email || !phone) continue;
    let timer;
    let asked = '';
    const show = (answer) => {
      output.replaceChildren();
      if (!answer) return;
      const { match, rule } = answer;
      // The sentences come in the page's language on the output element: {name} is the customer's link,
      // {count} the number of earlier jobs (one sentence per plural form the language has here).
      const say = output.dataset;
      if (!match) {
        output.textContent = say.msgNew ?? 'New customer: nobody has this email or phone number yet.';
        return;
      }
      const link = document.createElement('a');
      link.href = `/dashboard/customers/${encodeURIComponent(match.id)}`;
      link.target = '_blank';
      link.textContent = match.companyName ? `${match.companyName} (${match.name})` : match.name;
      const lang = document.documentElement.lang || 'en';
      const plural = new Intl.PluralRules(lang).select(match.leadCount) === 'one' ? 'One' : 'Other';
      const template = say[`msg${rule === 'email' ? 'Email' : 'Phone'}${plural}`];
      if (template) {
        const [before, after = ''] = template
          .replace('{count}', match.leadCount.toLocaleString(lang))
          .split('{name}');
        output.append(before, link, after);
        return;
      }
      const jobs = match.leadCount === 1 ? '1 earlier job' : `${match.leadCount} earlier jobs`;
      const by = rule === 'email' ? 'this email address' : 'this phone number';
      output.append('Will be added to ', link, ` (${jobs}), who has ${by}.`);
    };
    const ask = async () => {
      const params = new URLSearchParams({
        email: email.value.trim(),
        phone: phone.value.trim(),
        country: country ? country.value.trim() : '',
      });
      const key = params.toString();
      if (key === asked) return;
      asked = key;
      if (!email.value.trim() && !phone.value.trim()) return show(null);
      try {
        const response = await fetch(`${form.dataset.customerMatch}?${key}`, {
          credentials: 'same-origin',
          headers: { accept: 'application/json' },
        });
        const type = response.headers.get('content-type') ?? '';
        const answer = response.ok && type.startsWith('application/json') ? await response.json() : null;
        // Answers may arrive out of order: only the one for what is in the fields now counts.
        if (asked === key) show(answer);
      } catch {
        if (asked === key) show(null);
      }
    };
    for (const input of [email, phone, country]) {
      if (!input) continue;
      input.addEventListener('input', () => {
        clearTimeout(timer);
        timer = setTimeout(ask, 400);
      });
      input.addEventListener('change', () => {
        clearTimeout(timer);
        ask();
      });
    }
    if (email.value.trim() || phone.value.trim()) ask();
  }

  // Settings > Forms: the preview follows the settings form as it is changed. The server renders the unsaved form
  // (POST …/preview with the form's fields and its CSRF token, nothing saved); the newest answer wins.
  const preview = document.querySelector('[data-preview-of][data-preview-url]');
  const source = preview && document.getElementById(preview.dataset.previewOf);
  if (preview && source instanceof HTMLFormElement) {
    const note = preview.parentElement?.querySelector('[data-live-text]');
    if (note) note.textContent = note.dataset.liveText;
    let timer;
    let asked = 0;
    const refresh = async () => {
      const ask = ++asked;
      try {
        const response = await fetch(preview.dataset.previewUrl, {
          method: 'POST',
          credentials: 'same-origin',
          headers: { accept: 'text/html' },
          body: new URLSearchParams(new FormData(source)),
        });
        if (response.ok && ask === asked) preview.innerHTML = await response.text();
      } catch {
        // Offline or signed out: the preview stays as it was; saving still works (or says why not).
      }
    };
    const later = () => {
      clearTimeout(timer);
      timer = setTimeout(refresh, 250);
    };
    source.addEventListener('input', later);
    source.addEventListener('change', later);
  }

  // <details data-open-wide> (the menu, the leads overview) are closed on phones and shown in full from 768 px by
  // the stylesheet. Browsers whose stylesheet cannot show a closed <details>' content get them opened here instead.
  if (!CSS.supports('selector(::details-content)')) {
    const wide = window.matchMedia('(min-width: 768px)');
    const openWide = () => {
      for (const details of document.querySelectorAll('details[data-open-wide]')) details.open = wide.matches;
    };
    openWide();
    wide.addEventListener('change', openWide);
  }
})();
