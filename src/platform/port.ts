// uWS listens with SO_REUSEPORT, so a second daemon on the same port would share it silently.
// An exclusive bind first proves the port is free (and picks one when port 0 was asked for).
import uws from 'uWebSockets.js';

export class PortInUseError extends Error {
  constructor(host: string, port: number) {
    super(`cannot listen on ${host}:${port}: the port is in use (is another netintel already running?)`);
    this.name = 'PortInUseError';
  }
}

export function claimPort(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const app = uws.App();
    const listen = app.listen as unknown as (h: string, p: number, opts: number, cb: (s: uws.us_listen_socket | false) => void) => void;
    listen.call(app, host, port, 1 /* LIBUS_LISTEN_EXCLUSIVE_PORT */, (socket) => {
      if (socket === false) {
        reject(new PortInUseError(host, port));
        return;
      }
      const chosen = uws.us_socket_local_port(socket as unknown as uws.us_socket);
      uws.us_listen_socket_close(socket);
      resolve(chosen);
    });
  });
}
