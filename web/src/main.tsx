import { render } from "solid-js/web";
import { AppState, pageAPI } from "./app/state";
import { App } from "./app/App";
import "./styles.css";

// The client state exists before anything renders, logged in or not, so
// plugins and the console can reach window.state at once.
const state = new AppState(pageAPI());
(window as unknown as { state: AppState }).state = state;

render(() => <App state={state} />, document.getElementById("root")!);

// Enabled plugins load after the first render; one that throws is
// reported and the app goes on.
state.plugins.init();
