// Disclosure: the header of a collapsible section, as a real <button aria-expanded> (reachable with Tab,
// toggled with Enter or Space, announced as expanded / collapsed) — ipywidgets' Accordion header is a
// plain <div> a keyboard cannot reach. Python shows or hides the section when `expanded` changes; the
// section's box carries the class in `controls`, which becomes aria-controls once it is in the page.
// Colours are theme variables (--jp-*).

let counter = 0;

function render({ model, el }) {
  el.classList.add("jupyter-widgets", "workbench-disclosure-view");
  const button = document.createElement("button");
  button.type = "button";
  button.className = "workbench-disclosure";
  Object.assign(button.style, {
    display: "flex",
    alignItems: "center",
    gap: "6px",
    width: "100%",
    padding: "4px 8px",
    font: "inherit",
    fontWeight: "600",
    textAlign: "left",
    cursor: "pointer",
    color: "var(--jp-ui-font-color1)",
    background: "var(--jp-layout-color2)",
    border: "1px solid var(--jp-border-color1)",
    borderRadius: "2px",
  });
  const caret = document.createElement("i");
  caret.setAttribute("aria-hidden", "true");
  const text = document.createElement("span");
  button.append(caret, text);
  el.appendChild(button);

  function draw() {
    const open = !!model.get("expanded");
    text.textContent = model.get("title");
    caret.className = "fa fa-fw " + (open ? "fa-caret-down" : "fa-caret-right");
    button.setAttribute("aria-expanded", String(open));
  }

  function link() {
    const cls = model.get("controls");
    const box = cls && el.parentElement ? el.parentElement.querySelector("." + cls) : null;
    if (!box) {
      return false;
    }
    if (!box.id) {
      counter += 1;
      box.id = `workbench-section-${Math.random().toString(36).slice(2, 8)}-${counter}`;
    }
    button.setAttribute("aria-controls", box.id);
    return true;
  }

  let timer = null;
  let delay = 20;
  function attempt() {
    timer = null;
    if (!link()) {
      delay = Math.min(delay * 2, 1000);
      timer = setTimeout(attempt, delay);
    }
  }

  button.addEventListener("click", () => {
    model.set("expanded", !model.get("expanded"));
    model.save_changes();
  });
  model.on("change:expanded", draw);
  model.on("change:title", draw);
  draw();
  attempt();
  return () => {
    if (timer !== null) {
      clearTimeout(timer);
    }
  };
}

export default { render };
