// The operator's console ("Instance"): the instance's figures and
// warnings, users, reports, servers, registration invites and the audit
// log, over the /admin routes. Only privileged users see its entry;
// anyone else who opens its address is told they are not allowed (and
// the routes answer them 403 anyway).

import { Match, Show, Switch } from "solid-js";
import type { AppState } from "../app/state";
import { href } from "../app/router";
import { Tabs } from "../ui/common";
import { Overview } from "./Overview";
import { UserPage, Users } from "./Users";
import { Reports } from "./Reports";
import { ServerPage, Servers } from "./Servers";
import { Registration } from "./Registration";
import { AuditLog } from "./AuditLog";

export function Console(props: { state: AppState; tab: string; id?: string }) {
  const allowed = () => props.state.client?.user?.privileged === true;
  return (
    <div class="page console">
      <h1>Instance</h1>
      <Show
        when={allowed()}
        fallback={
          <div class="card wide" role="alert">
            <h2>Not allowed</h2>
            <p>The instance's console is only for its operators (privileged users). Ask an operator of this instance if you need something done.</p>
          </div>
        }
      >
        <Tabs
          label="Console sections"
          tabs={[
            ["overview", "Overview"],
            ["users", "Users"],
            ["reports", "Reports"],
            ["servers", "Servers"],
            ["registration", "Registration"],
            ["audit", "Audit log"],
          ]}
          current={props.tab}
          to={(t) => href.admin(t)}
        />
        <Switch fallback={<Overview state={props.state} />}>
          <Match when={props.tab === "users" && props.id}>
            <UserPage state={props.state} id={props.id!} />
          </Match>
          <Match when={props.tab === "users"}>
            <Users state={props.state} />
          </Match>
          <Match when={props.tab === "reports"}>
            <Reports state={props.state} />
          </Match>
          <Match when={props.tab === "servers" && props.id}>
            <ServerPage state={props.state} id={props.id!} />
          </Match>
          <Match when={props.tab === "servers"}>
            <Servers state={props.state} />
          </Match>
          <Match when={props.tab === "registration"}>
            <Registration state={props.state} />
          </Match>
          <Match when={props.tab === "audit"}>
            <AuditLog state={props.state} />
          </Match>
        </Switch>
      </Show>
    </div>
  );
}
