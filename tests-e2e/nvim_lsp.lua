-- Neovim's own LSP client (0.7+) drives `kindred lsp`: run headless by test_lsp_neovim.py with
-- KINDRED_BIN, NOTES_ROOT, NOTES_FILE, ENTRY_LINE and OUT set; what Neovim received is written to OUT as JSON.
local env = vim.env
local logs, out = {}, {}
local id = vim.lsp.start_client({
  name = "kindred",
  cmd = {env.KINDRED_BIN, "lsp"},
  root_dir = env.NOTES_ROOT,
  handlers = {
    ["window/logMessage"] = function(_, params) table.insert(logs, params.message) end,
    -- The list a code lens's command shows: kept, and nothing chosen (no document opens).
    ["window/showMessageRequest"] = function(_, params) out.picker = params; return vim.NIL end,
  },
})
local client = vim.lsp.get_client_by_id(id)
local function patterns_refreshed()
  for _, m in ipairs(logs) do
    if m:find("^kindred: patterns refreshed") then return true end
  end
  return false
end
out.indexed = vim.wait(300000, patterns_refreshed, 50)
vim.cmd("edit " .. vim.fn.fnameescape(env.NOTES_FILE))
vim.lsp.buf_attach_client(0, id)
local uri = vim.uri_from_bufnr(0)
local line = tonumber(env.ENTRY_LINE)
local function ask(method, params)
  local answer, err = client.request_sync(method, params, 60000, 0)
  if not answer then return {error = err} end
  return {result = answer.result, error = answer.err}
end
out.symbols = ask("workspace/symbol", {query = "the dream where I kept missing a train"})
out.hover = ask("textDocument/hover", {textDocument = {uri = uri}, position = {line = line, character = 0}})
out.references = ask("textDocument/references", {textDocument = {uri = uri}, position = {line = line, character = 0},
                                                 context = {includeDeclaration = false}})
out.documentSymbols = ask("textDocument/documentSymbol", {textDocument = {uri = uri}})
-- Code lenses, and the command of the first one on the entry, as vim.lsp.codelens.run() sends it.
out.codeLens = ask("textDocument/codeLens", {textDocument = {uri = uri}})
for _, lens in ipairs(out.codeLens.result or {}) do
  if lens.range.start.line == line - 2 and lens.command.command == "kindred.findings" then
    out.lensCommand = ask("workspace/executeCommand", lens.command)
    break
  end
end
-- An edit in the buffer, not saved: Neovim sends the full text (didChange); it is found once indexed.
vim.api.nvim_buf_set_lines(0, -1, -1, false, {"", "## 2025-01-31", "", "We planted a kumquat tree in a terracotta pot on the balcony."})
local found = vim.wait(20000, function()
  local r = ask("workspace/symbol", {query = "a kumquat tree in a pot"})
  return r.result and r.result[1] and r.result[1].name:find("kumquat") ~= nil
end, 200)
out.edited = {found = found, symbols = ask("workspace/symbol", {query = "a kumquat tree in a pot"})}
out.logs = logs
local f = assert(io.open(env.OUT, "w"))
f:write(vim.fn.json_encode(out))
f:close()
client.stop()
vim.wait(10000, function() return vim.lsp.client_is_stopped(id) end, 50)
vim.cmd("qa!")
