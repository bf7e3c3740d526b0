// ClickableHTML: Python renders (and escapes) the HTML; this view only shows it and turns clicks and
// keys into model changes and messages. Hooks, by data attribute:
//   data-key="…"     an item (log row, tool): click / Enter / Space sets the model's `selected`
//   data-sort="col"  a sortable column header: sends {event: "sort", column}
// Arrow keys move the focus between items.

function render({ model, el }) {
  el.classList.add("workbench-clickable");

  const mark = () => {
    const key = model.get("selected");
    for (const node of el.querySelectorAll("[data-key]")) {
      const on = node.dataset.key === key;
      node.classList.toggle("workbench-selected", on);
      node.setAttribute("aria-selected", on ? "true" : "false");
    }
  };
  const draw = () => {
    el.innerHTML = model.get("value");
    mark();
  };

  const act = (target) => {
    const sort = target.closest("[data-sort]");
    if (sort && el.contains(sort)) {
      model.send({ event: "sort", column: sort.dataset.sort });
      return true;
    }
    const item = target.closest("[data-key]");
    if (item && el.contains(item)) {
      model.set("selected", item.dataset.key);
      model.save_changes();
      mark();
      return true;
    }
    return false;
  };

  const onClick = (event) => {
    if (event.target.closest("a")) return; // links keep working
    const selection = window.getSelection && window.getSelection();
    if (selection && !selection.isCollapsed && el.contains(selection.anchorNode)) return; // selecting text
    if (act(event.target)) event.preventDefault();
  };
  const onKey = (event) => {
    if (event.key === "Enter" || event.key === " ") {
      if (act(event.target)) event.preventDefault();
      return;
    }
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const current = event.target.closest("[data-key]");
      if (!current) return;
      const items = [...el.querySelectorAll("[data-key]")];
      const next = items[items.indexOf(current) + (event.key === "ArrowDown" ? 1 : -1)];
      if (next) {
        next.focus();
        event.preventDefault();
      }
    }
  };

  el.addEventListener("click", onClick);
  el.addEventListener("keydown", onKey);
  model.on("change:value", draw);
  model.on("change:selected", mark);
  draw();
  return () => {
    el.removeEventListener("click", onClick);
    el.removeEventListener("keydown", onKey);
    model.off("change:value", draw);
    model.off("change:selected", mark);
  };
}

export default { render };
