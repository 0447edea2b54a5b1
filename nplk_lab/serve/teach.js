// The teacher link's page (teach.html, nplk_lab/serve/class_web.py): makes this browser a
// teacher device of the class, then opens the class. The token is in the fragment
// (#class=CODE&key=TOKEN): no server, proxy or log sees it, and it leaves the address
// bar and the history before anything else happens.
(async () => {
  const msg = document.getElementById('msg');
  const got = new URLSearchParams(location.hash.slice(1));
  // the token leaves the address bar and this tab's history now, whatever happens next
  history.replaceState(null, '', location.pathname);
  const code = got.get('class') || '';
  const key = got.get('key') || '';
  const say = (text) => { msg.textContent = text; };
  if (!code || !key) {
    say('This teacher link is incomplete: copy the whole link from your class’s page.');
    return;
  }
  let answer;
  try {
    answer = await fetch(location.pathname, {
      method: 'POST', credentials: 'same-origin', cache: 'no-store',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ class: code, key }),
    });
  } catch {
    say('The lab did not answer: check that it is running, then open the teacher link again.');
    return;
  }
  let out;
  try { out = await answer.json(); } catch { out = {}; }
  if (!answer.ok || !out.class) {
    say(out.error || 'This teacher link does not open a class.');
    return;
  }
  const to = new URLSearchParams({ class: out.class });
  for (const k of ['present', 'my_lesson']) if (got.get(k)) to.set(k, got.get(k));
  location.replace(new URL('../Lessons?' + to.toString(), location.href).toString());
})();
