// The Lessons page's keys on a question's options (read by nplk_lab/ui/lessons.py and
// put on the page once per tab).
//
// An option is only a choice: "Lock in" answers. On a focused option, Enter presses
// "Lock in"; the up and down arrows move between the options (the browser's own radio
// keys), which chooses without answering. An option clicked with the mouse stays
// focused, and the left and right arrows there would move the choice instead of the
// step: they press "Back" and "Next" instead.
(() => {
  if (window.__nplkLessonKeys) return;
  window.__nplkLessonKeys = true;
  const BUTTONS = { ArrowLeft: 'lesson_back', ArrowRight: 'lesson_next', Enter: 'lesson_lock' };
  document.addEventListener('keydown', (e) => {
    const key = BUTTONS[e.key];
    const t = e.target;
    if (!key || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || !t || !t.closest ||
        !t.closest('[class*="st-key-nplk-keep-question"]')) return;
    // the shown button (a button with a tooltip also has a hidden copy)
    const b = [...document.querySelectorAll('.st-key-' + key + ' button')]
      .find((e) => e.getClientRects().length > 0);
    e.preventDefault();
    e.stopPropagation();
    if (key !== 'lesson_lock') t.blur();
    if (b && !b.disabled) b.click();
  }, true);
})();
