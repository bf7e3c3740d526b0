// ClickableHTML: Python renders (and escapes) the HTML; this view only shows it and turns clicks and
// keys into model changes and messages. Hooks, by data attribute:
//   data-key="…"     an item (log row, tool): click / Enter / Space sets the model's `selected`
//   data-sort="col"  a sortable column header: sends {event: "sort", column}
//   data-action="…"  a button: sends {event: "action", action, key}
//   data-copy="…"    a button: copies the attribute's text to the clipboard, sends {event: "copy", ok}
// Arrow keys move the focus between items.

function fallbackCopy(text) {
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch (err) {
    ok = false;
  }
  area.remove();
  return ok;
}

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch (err) {
      // denied (no focus, no permission): try the old way
    }
  }
  return fallbackCopy(text);
}

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
    const copy = target.closest("[data-copy]");
    if (copy && el.contains(copy)) {
      copyText(copy.dataset.copy).then((ok) => {
        const label = copy.textContent;
        copy.textContent = ok ? "Copied ✓" : "Copy failed";
        copy.classList.add("workbench-copied");
        setTimeout(() => {
          copy.textContent = label;
          copy.classList.remove("workbench-copied");
        }, 1200);
        model.send({ event: "copy", ok });
      });
      return true;
    }
    const sort = target.closest("[data-sort]");
    if (sort && el.contains(sort)) {
      model.send({ event: "sort", column: sort.dataset.sort });
      return true;
    }
    const action = target.closest("[data-action]");
    if (action && el.contains(action)) {
      const owner = action.closest("[data-key]");
      model.send({ event: "action", action: action.dataset.action, key: owner ? owner.dataset.key : "" });
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
