/**
 * An error the SDK server answers as a JSON-RPC error with this code and message. Not the SDK's McpError:
 * its message already reads "MCP error <code>: ...", which the server sends as the message and a client's
 * McpError prefixes again ("MCP error -32602: MCP error -32602: ...").
 */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
