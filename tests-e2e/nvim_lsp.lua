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
out.logs = logs
local f = assert(io.open(env.OUT, "w"))
f:write(vim.fn.json_encode(out))
f:close()
client.stop()
vim.wait(10000, function() return vim.lsp.client_is_stopped(id) end, 50)
vim.cmd("qa!")
