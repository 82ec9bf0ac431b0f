// The side panel's tabs (Moves, Analysis, Explorer, Games): the APG's tabs pattern with
// automatic activation. One tab stop; Left and Right (Home, End) go between the tabs and show
// each at once; the selected tab has aria-selected="true" and its panel alone is shown.
//
// A panel shows what its views offer: the analysis and the explorer hide their sections where
// they are not offered (a game against the engine, no game database), and a tab whose panel
// holds nothing shown hides with it. The tab the reader chose is kept; while it is hidden the
// first tab offered stands in, and the chosen one comes back when it is offered again.

export class Tabs {
  /** @param {HTMLElement} list the role="tablist" element, its tabs with data-tab and aria-controls */
  constructor(list) {
    this.list = list;
    this.tabs = [...list.querySelectorAll('[role="tab"]')];
    this.chosen = this.tabs[0].dataset.tab;
    for (const tab of this.tabs) {
      tab.addEventListener("click", () => this.choose(tab.dataset.tab));
    }
    list.addEventListener("keydown", (event) => this.keyDown(event));
    // The views hide and show their sections themselves; the tabs follow.
    const observer = new MutationObserver(() => this.refresh());
    for (const tab of this.tabs) {
      observer.observe(this.panelOf(tab), { subtree: true, attributeFilter: ["hidden"] });
    }
    this.refresh();
  }

  panelOf(tab) {
    return document.getElementById(tab.getAttribute("aria-controls"));
  }

  /** Whether a tab's panel has anything to show (a child its view has not hidden). */
  isOffered(tab) {
    return [...this.panelOf(tab).children].some((child) => !child.hidden);
  }

  /** Show the tab named `name` (its data-tab), now or as soon as it is offered. */
  choose(name) {
    this.chosen = name;
    this.refresh();
  }

  /** The tab shown: the chosen one where offered, else the first offered. */
  get selected() {
    const offered = this.tabs.filter((tab) => this.isOffered(tab));
    return offered.find((tab) => tab.dataset.tab === this.chosen) ?? offered[0] ?? null;
  }

  refresh() {
    const selected = this.selected;
    // Only what changes is written: each write would wake the observer again.
    const set = (element, name, value) => {
      if (element.getAttribute(name) !== value) element.setAttribute(name, value);
    };
    for (const tab of this.tabs) {
      const panel = this.panelOf(tab);
      const isSelected = tab === selected;
      if (tab.hidden === this.isOffered(tab)) tab.hidden = !this.isOffered(tab);
      if (panel.hidden === isSelected) panel.hidden = !isSelected;
      set(tab, "aria-selected", String(isSelected));
      set(tab, "tabindex", isSelected ? "0" : "-1");
    }
    if (selected) this.list.dataset.selected = selected.dataset.tab;
  }

  keyDown(event) {
    const shown = this.tabs.filter((tab) => !tab.hidden);
    const index = shown.indexOf(event.target);
    if (index < 0 || event.altKey || event.ctrlKey || event.metaKey) return;
    const next = {
      ArrowLeft: shown[(index - 1 + shown.length) % shown.length],
      ArrowRight: shown[(index + 1) % shown.length],
      Home: shown[0],
      End: shown.at(-1),
    }[event.key];
    if (!next) return;
    event.preventDefault();
    event.stopPropagation(); // the page's own Left and Right step through the game
    this.choose(next.dataset.tab);
    next.focus();
  }
}
