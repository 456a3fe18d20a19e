// handrail's OpenCode plugin: before every tool call, ask handrail.
//
// Laid into .opencode/plugin/ by `handrail init`. OpenCode loads every plugin there;
// its `tool.execute.before` runs before each tool call, and an Error thrown from it
// blocks the call, its message reaching the agent. The call goes to
// `handrail hook opencode` as JSON on stdin ({tool, args, directory, worktree}); the
// answer is one JSON line: {"decision": "allow" | "notify" | "none" | "deny", "message"}.
// Anything else (handrail missing, a crash, an unreadable answer) blocks the call too:
// a guard that cannot answer must not let the call through.
//
// Plain JavaScript, so that Node can test it. HANDRAIL_BIN names the handrail command
// when it is not on PATH.

const LET_THROUGH = new Set(["allow", "notify", "none"])

export const Handrail = async ({ $, client, directory, worktree }) => {
  const bin = process.env.HANDRAIL_BIN || "handrail"

  async function ask(call) {
    let result
    try {
      result = await $`${bin} hook opencode < ${new Response(JSON.stringify(call))}`.nothrow().quiet()
    } catch (error) {
      throw new Error(`handrail: denied: cannot run '${bin}' (${error && error.message ? error.message : error}); ` +
        "install handrail or set HANDRAIL_BIN, then retry")
    }
    const text = String(result && result.stdout !== undefined ? result.stdout : "").trim()
    const last = text.split("\n").pop()
    let answer
    try {
      answer = JSON.parse(last)
    } catch {
      answer = null
    }
    if (!answer || typeof answer !== "object" || typeof answer.decision !== "string") {
      const said = String(result && result.stderr !== undefined ? result.stderr : "").trim().split("\n").pop()
      throw new Error(`handrail: denied: no readable answer from '${bin} hook opencode' ` +
        `(exit ${result ? result.exitCode : "?"}${said ? `: ${said}` : ""})`)
    }
    return answer
  }

  return {
    "tool.execute.before": async (input, output) => {
      const call = {
        tool: input && input.tool,
        sessionID: input && input.sessionID,
        callID: input && input.callID,
        args: output ? output.args : undefined,
        directory,
        worktree,
      }
      const answer = await ask(call)
      if (!LET_THROUGH.has(answer.decision)) {
        throw new Error(answer.message || `handrail: denied: ${call.tool} (no reason given)`)
      }
      if (answer.decision === "notify" && answer.message) {
        // Shown in OpenCode's log; a notice never stops the call, so a failure here is ignored.
        try {
          await client?.app?.log?.({ body: { service: "handrail", level: "info", message: answer.message } })
        } catch {}
      }
    },
  }
}
