// One text kept in this browser's storage (localStorage) under a name: what the page
// sends in `save` is written (an empty text removes it); when the page says it has
// nothing (`empty`), the text kept is sent back once as the `restore` trigger. Used by
// nplk_lab/ui/components/kept.py for a teacher's collected lesson steps, so a refresh, a
// typed address or a closed tab does not lose them. A browser that refuses storage
// (private windows of some browsers) keeps nothing, silently.
/* exported keptText */
function keptText(component) {
  // a marker that says this element is the kept text, not a chart waiting to be drawn
  const { parentElement } = component;
  if (parentElement && !parentElement.querySelector(':scope > .nplk-kept')) {
    const mark = document.createElement('div');
    mark.className = 'nplk-kept';
    mark.hidden = true;
    parentElement.appendChild(mark);
  }
  const data = component.data || {};
  const name = 'nplk-kept:' + String(data.name || '');
  let kept;
  try { kept = window.localStorage.getItem(name); } catch { return; }
  if (typeof data.save === 'string' && data.save !== (kept || '')) {
    try {
      if (data.save) window.localStorage.setItem(name, data.save);
      else window.localStorage.removeItem(name);
    } catch { /* storage full or refused: nothing kept */ }
    return;
  }
  if (data.empty && kept) {
    // once per page load and text: the page's answer is a rerun with the text restored
    const sent = (window.__nplkKeptSent = window.__nplkKeptSent || {});
    if (sent[name] === kept) return;
    sent[name] = kept;
    component.setTriggerValue('restore', kept);
  }
}
