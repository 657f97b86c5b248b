import assert from "node:assert/strict";
import { ProjectIdentityRequestSchema, ProjectIdentityResponseSchema } from "./project.ts";

const namespace = `/actor/alice/project/git-${"a".repeat(64)}/`;

Deno.test("project identity request: a namespace and a project path, nothing else", () => {
  assert.ok(
    ProjectIdentityRequestSchema.safeParse({ namespace, project_path: "/srv/app" }).success,
  );
  for (
    const bad of [
      { namespace: "/actor/x/", project_path: "/srv/app" },
      { namespace, project_path: "" },
      { namespace, project_path: "x".repeat(5000) },
      { namespace },
      { namespace, project_path: "/srv/app", remote: "https://u:t@host/r" },
    ]
  ) {
    assert.equal(ProjectIdentityRequestSchema.safeParse(bad).success, false, JSON.stringify(bad));
  }
});

Deno.test("project identity response: counts or null", () => {
  assert.ok(ProjectIdentityResponseSchema.safeParse({ namespace, moved: null }).success);
  assert.ok(ProjectIdentityResponseSchema.safeParse({ namespace, moved: { events: 3 } }).success);
  assert.equal(
    ProjectIdentityResponseSchema.safeParse({ namespace, moved: { events: -1 } }).success,
    false,
  );
});
