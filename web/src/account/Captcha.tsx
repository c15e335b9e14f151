// hCaptcha, shown only when the instance turns captcha on (the root
// object's features.captcha). Its widget is the one thing the page loads
// from outside the instance, and only then; the page's policy allows it
// only then too.

import { onCleanup, onMount } from "solid-js";

interface HCaptcha {
  render(el: HTMLElement, opts: { sitekey: string; callback: (token: string) => void; "expired-callback": () => void }): string;
  remove(id: string): void;
}

let loading: Promise<HCaptcha> | undefined;

function load(): Promise<HCaptcha> {
  const w = window as unknown as { hcaptcha?: HCaptcha; ermineCaptchaLoaded?: () => void };
  if (w.hcaptcha) return Promise.resolve(w.hcaptcha);
  loading ??= new Promise((resolve, reject) => {
    w.ermineCaptchaLoaded = () => resolve(w.hcaptcha!);
    const script = document.createElement("script");
    script.src = "https://js.hcaptcha.com/1/api.js?render=explicit&onload=ermineCaptchaLoaded";
    script.async = true;
    script.onerror = () => {
      loading = undefined;
      reject(new Error("the captcha could not be loaded"));
    };
    document.head.appendChild(script);
  });
  return loading;
}

export function Captcha(props: { siteKey: string; onToken: (token: string | undefined) => void; onError: (message: string) => void }) {
  let box!: HTMLDivElement;
  let id: string | undefined;
  let api: HCaptcha | undefined;
  onMount(() => {
    load()
      .then((h) => {
        api = h;
        id = h.render(box, { sitekey: props.siteKey, callback: (t) => props.onToken(t), "expired-callback": () => props.onToken(undefined) });
      })
      .catch((err) => props.onError(err.message));
  });
  onCleanup(() => id !== undefined && api?.remove(id));
  return <div ref={box} class="captcha" />;
}
