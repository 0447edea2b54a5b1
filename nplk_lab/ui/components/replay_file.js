// The replay's HTML file (nplk_lab/ui/components/replay_file.py): the lab's player,
// started on the figure the file carries, at the untrained start, with the speed and
// loop chosen in the lab. The last part of the file's script, after replay.js.
/* global playReplay */

(() => {
  const text = (id) => document.getElementById(id).textContent;
  const settings = JSON.parse(text('nplk-replay-settings'));
  document.getElementById('nplk-replay-title').textContent = settings.title;
  document.getElementById('nplk-replay-caption').textContent = settings.caption;
  playReplay({
    data: { figure: text('nplk-replay-figure'), step: 0, height: settings.height,
            fps: settings.fps, speed: settings.speed, loop: settings.loop,
            config: settings.config },
    parentElement: document.getElementById('nplk-replay-host'),
    setStateValue: () => {},
  });
})();
