// SecretInput: a password box whose value never enters the widget's state.
//
// ipywidgets' Password syncs `value` like Text does, so JupyterLab saves the typed secret with the notebook's
// widget state. Here the value travels only as messages: each keystroke sends {value} to the kernel, and
// the kernel sends {value} when Python sets it (a form loading an input). A view made later (the notebook
// reopened, the output shown twice) starts empty; the placeholder says whether the kernel holds a value.
// It carries the classes of an ipywidgets Text (widget-text, widget-input), so it looks like the text
// boxes beside it in every theme.

function render({ model, el }) {
  el.classList.add("jupyter-widgets", "widget-inline-hbox", "widget-text", "widget-password");
  const input = document.createElement("input");
  input.type = "password";
  input.className = "widget-input";
  input.autocomplete = "new-password";
  input.spellcheck = false;
  const draw = () => {
    input.placeholder = model.get("placeholder");
    input.disabled = model.get("disabled");
  };
  input.addEventListener("input", () => model.send({ value: input.value }));
  const receive = (message) => {
    if (message && typeof message.value === "string" && message.value !== input.value) {
      input.value = message.value;
    }
  };
  model.on("msg:custom", receive);
  model.on("change:placeholder", draw);
  model.on("change:disabled", draw);
  draw();
  el.appendChild(input);
  return () => model.off("msg:custom", receive);
}
export default { render };
