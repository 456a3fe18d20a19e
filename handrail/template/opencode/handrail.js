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
// A search refused for the secrets in its scope may come with `"narrow": {arg: value}`,
// the arguments that keep every secret out of it (grep's `include` glob). When the call
// sets none of them itself, they are set on `output.args`, the very object OpenCode then
// runs the tool with (a new object put in its place would be ignored), and the narrowed
// call goes ahead; otherwise the refusal stands.
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
      if (narrowable(answer, output)) {
        Object.assign(output.args, answer.narrow)
        await note(`handrail: narrowed ${call.tool}: ${JSON.stringify(answer.narrow)} keeps the secret files out`)
        return
      }
      if (!LET_THROUGH.has(answer.decision)) {
        throw new Error(answer.message || `handrail: denied: ${call.tool} (no reason given)`)
      }
      if (answer.decision === "notify" && answer.message) await note(answer.message)
    },
  }

  async function note(message) {
    // Shown in OpenCode's log; a notice never stops the call, so a failure here is ignored.
    try {
      await client?.app?.log?.({ body: { service: "handrail", level: "info", message } })
    } catch {}
  }
}

// Only a refusal offering string arguments, none of which the call already sets.
function narrowable(answer, output) {
  const narrow = answer.narrow
  if (answer.decision !== "deny" || !narrow || typeof narrow !== "object" || Array.isArray(narrow)) return false
  const args = output && output.args
  if (!args || typeof args !== "object") return false
  const keys = Object.keys(narrow)
  return keys.length > 0 && keys.every((k) => typeof narrow[k] === "string" && (args[k] === undefined || args[k] === null || args[k] === ""))
}

