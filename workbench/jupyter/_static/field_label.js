// FieldLabel: a real <label> for a form field whose control is another widget's view.
//
// Widget views get fresh DOM ids each time they are shown, so Python cannot write for="…". Instead it
// marks the field's widgets with classes (model traits `target`, `help`, `error`) and this view finds
// them inside its own field box (the closest .workbench-field), then:
//   - a control (input, select, textarea): label.htmlFor = its id, so a click focuses it and the label
//     is its accessible name; aria-describedby = the help line (description · constraints) and the
//     error line(s); aria-required; aria-invalid while an error is shown; title = the description;
//   - a group (object, list, tuple, mapping): role="group" + aria-labelledby, and a click on the label
//     focuses the group's first control.
// Everything it changes is an attribute; colours come from the theme (--jp-* variables).

const CONTROL = "input:not([type=hidden]), select, textarea";
const FOCUSABLE = CONTROL + ", button";
let counter = 0;

function uid(prefix) {
  counter += 1;
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}-${counter}`;
}

function ensureId(node, prefix) {
  if (!node.id) {
    node.id = uid(prefix);
  }
  return node.id;
}

function render({ model, el }) {
  // el is the label cell (".widget-label": height, ellipsis); the <label> holds the name only, and the
  // required mark sits beside it, hidden from screen readers (the control says aria-required instead)
  el.classList.add("jupyter-widgets", "widget-label", "workbench-label-view");
  const label = document.createElement("label");
  label.className = "workbench-label";
  label.id = uid("workbench-label");
  const mark = document.createElement("span");
  mark.className = "workbench-required-mark";
  mark.setAttribute("aria-hidden", "true");
  el.append(label, mark);

  let bound = null; // {target, control}
  let timer = null;
  let delay = 20;
  let observer = null;

  function draw() {
    const name = model.get("value");
    const description = model.get("description");
    label.textContent = name;
    mark.textContent = model.get("required") ? " *" : "";
    el.title = description ? `${name}: ${description}` : name;
  }

  function inField(cls, all) {
    const box = el.closest(".workbench-field");
    if (!cls || !box) {
      return all ? [] : null;
    }
    return all ? [...box.querySelectorAll("." + cls)] : box.querySelector("." + cls);
  }

  function describe() {
    if (!bound) {
      return;
    }
    const { target, control } = bound;
    const node = control || target;
    const ids = [inField(model.get("help"), false), ...inField(model.get("error"), true)]
      .filter(Boolean)
      .map((n) => ensureId(n, "workbench-desc"));
    if (ids.length) {
      node.setAttribute("aria-describedby", ids.join(" "));
    } else {
      node.removeAttribute("aria-describedby");
    }
    if (control) {
      const description = model.get("description");
      if (description) {
        control.title = description;
      }
      control.setAttribute("aria-required", model.get("required") ? "true" : "false");
      if (model.get("invalid")) {
        control.setAttribute("aria-invalid", "true");
      } else {
        control.removeAttribute("aria-invalid");
      }
    }
  }

  function bind() {
    const target = inField(model.get("target"), false);
    if (!target) {
      return false;
    }
    if (model.get("group")) {
      target.setAttribute("role", "group");
      target.setAttribute("aria-labelledby", label.id);
      bound = { target, control: null };
    } else {
      const control = target.matches(CONTROL) ? target : target.querySelector(CONTROL);
      if (!control) {
        return false;
      }
      label.htmlFor = ensureId(control, "workbench-control");
      bound = { target, control };
    }
    describe();
    return true;
  }

  function stale() {
    return !bound || !bound.target.isConnected || (bound.control && !bound.control.isConnected);
  }

  // The label's view and its control's view are inserted in whichever order their promises resolve:
  // retry (backing off) until both are in the page, then watch the field box for a re-rendered control.
  function attempt() {
    timer = null;
    if (bind()) {
      const box = el.closest(".workbench-field");
      if (box && !observer) {
        observer = new MutationObserver(() => {
          if (stale()) {
            bound = null;
            bind();
          } else {
            describe(); // a help or error line rendered after the control
          }
        });
        observer.observe(box, { childList: true, subtree: true });
      }
      return;
    }
    delay = Math.min(delay * 2, 1000);
    timer = setTimeout(attempt, delay);
  }

  label.addEventListener("click", (event) => {
    if (bound && !bound.control) {
      const first = bound.target.querySelector(FOCUSABLE);
      if (first) {
        event.preventDefault();
        first.focus();
      }
    }
  });

  model.on("change:value", draw);
  model.on("change:required", () => {
    draw();
    describe();
  });
  model.on("change:description", () => {
    draw();
    describe();
  });
  model.on("change:invalid", describe);
  draw();
  attempt();

  return () => {
    if (timer !== null) {
      clearTimeout(timer);
    }
    if (observer) {
      observer.disconnect();
    }
  };
}

export default { render };
