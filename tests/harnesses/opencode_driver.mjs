// Drives handrail's OpenCode plugin under Node, as OpenCode would under Bun.
//
//   node opencode_driver.mjs PLUGIN.js  < {"directory": …, "calls": [{"tool": …, "args": …}, …]}
//
// Prints one JSON line: for each call, {"ran": true} when the plugin let it through
// (with "args", the arguments the tool then runs with, when the plugin changed them),
// or {"error": message} when it threw (OpenCode then blocks the call), and the log
// messages the plugin sent. `$` is a stand-in for Bun's shell: interpolated values are
// single arguments, and `< ${value}` feeds the value (a Response) to stdin.
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { pathToFileURL } from "node:url"

function $(strings, ...values) {
  const argv = []
  let stdin = null
  for (let i = 0; i < strings.length; i++) {
    const words = strings[i].split(/\s+/).filter(Boolean)
    let redirect = false
    for (const w of words) {
      if (w === "<") redirect = true
      else argv.push(w)
    }
    if (i < values.length) {
      if (redirect) stdin = values[i]
      else argv.push(String(values[i]))
    }
  }
  const run = async () => {
    const input = stdin === null ? "" : typeof stdin.text === "function" ? await stdin.text() : String(stdin)
    return await new Promise((resolve, reject) => {
      const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "pipe"] })
      const out = [], err = []
      child.on("error", reject) // Bun's shell throws when the command cannot start
      child.stdout.on("data", (d) => out.push(d))
      child.stderr.on("data", (d) => err.push(d))
      child.on("close", (code) => resolve({ exitCode: code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }))
      child.stdin.on("error", () => {})
      child.stdin.end(input)
    })
  }
  const promise = { nothrow: () => promise, quiet: () => promise, then: (ok, fail) => run().then(ok, fail) }
  return promise
}

const request = JSON.parse(readFileSync(0, "utf8"))
const logs = []
const client = { app: { log: async ({ body }) => { logs.push(body.message) } } }
const mod = await import(pathToFileURL(process.argv[2]).href)
const plugins = Object.values(mod).filter((f) => typeof f === "function")
const hooks = await plugins[0]({ $, client, directory: request.directory, worktree: request.directory })
const results = []
for (const call of request.calls) {
  // As OpenCode does: the tool runs with the object it handed the plugin, whatever
  // the plugin put in `output.args` instead.
  const args = call.args
  const before = JSON.stringify(args)
  const output = { args }
  try {
    await hooks["tool.execute.before"]({ tool: call.tool, sessionID: "ses_1", callID: "call_1" }, output)
    results.push(JSON.stringify(args) === before ? { ran: true } : { ran: true, args })
  } catch (error) {
    results.push({ error: String(error && error.message) })
  }
}
console.log(JSON.stringify({ plugins: plugins.length, results, logs }))
