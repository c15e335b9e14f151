// A button that opens the browser's file chooser: the file input itself
// stays hidden, so the control a person sees is an ordinary button.

import { type JSX } from "solid-js";

export function FilePicker(props: {
  label: string;
  children?: JSX.Element;
  accept?: string;
  multiple?: boolean;
  disabled?: boolean;
  class?: string;
  title?: string;
  onFiles: (files: File[]) => void;
}) {
  let input!: HTMLInputElement;
  return (
    <>
      <button type="button" class={props.class} aria-label={props.label} title={props.title ?? props.label} disabled={props.disabled} onClick={() => input.click()}>
        {props.children ?? props.label}
      </button>
      <input
        ref={input}
        type="file"
        hidden
        accept={props.accept}
        multiple={props.multiple}
        onChange={(e) => {
          const files = Array.from(e.currentTarget.files ?? []);
          e.currentTarget.value = "";
          if (files.length) props.onFiles(files);
        }}
      />
    </>
  );
}
