// A class code typed on the Lessons page has joined its class (class_session.py): the
// student goes on to the class's page for phones, the page its join link and QR code
// open. The address is the server's own (data-nplk-to-hall on the element beside this
// script); this page is replaced in the history, so Back does not land on the form.
(() => {
  const marks = document.querySelectorAll('[data-nplk-to-hall]');
  const mark = marks[marks.length - 1];
  if (!mark) return;
  const to = new URL(mark.dataset.nplkToHall, window.location.href);
  if (to.origin !== window.location.origin || !to.pathname.endsWith('/_nplk/class')) return;
  window.location.replace(to.href);
})();
