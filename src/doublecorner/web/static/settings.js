// The page's settings, kept in this browser (localStorage): the board's labels, its look and its
// kings, the sounds and the motion. The game page changes them (index.html's Settings); the
// learn page draws its boards with them too.

const SETTINGS_KEY = "doublecorner.settings";

// Each setting's choices, the first its default. Sounds start off: a page that makes noise
// unasked is no kindness; motion starts on, unless the system asks for less (motion.js).
const CHOICES = {
  coordinates: ["numbers", "algebraic", "none"],
  style: ["tournament", "wood", "slate", "book"],
  kings: ["stacked", "crowned"],
  sounds: [false, true],
  motion: [true, false],
};

/** The settings kept, each a known choice (an unknown or missing one is its default). */
export function loadSettings() {
  let kept = {};
  try {
    kept = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? "{}") ?? {};
  } catch {
    kept = {}; // a value another version wrote: start again from the defaults
  }
  return Object.fromEntries(Object.entries(CHOICES).map(([name, choices]) => [
    name, choices.includes(kept[name]) ? kept[name] : choices[0],
  ]));
}

export function saveSettings(settings) {
  localStorage.setItem(SETTINGS_KEY, JSON.stringify(settings));
}
