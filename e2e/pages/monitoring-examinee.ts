import type { APIRequestContext, BrowserContext, Page } from '@playwright/test';
import {
  KinesisVideoClient,
  DescribeSignalingChannelCommand,
  GetSignalingChannelEndpointCommand,
} from '@aws-sdk/client-kinesis-video';
import { SigV4RequestSigner } from 'amazon-kinesis-video-streams-webrtc';

interface Envelope<T> {
  status: number;
  message: string;
  result: T;
}
interface Channel {
  region: string;
  access_key_id: string;
  secret_access_key: string;
  session_token: string;
  channel_name: string;
  endpoint?: string;
}
interface PollResult {
  matchings: {
    tester_id: number;
    monitor_id: number;
    checker_id: number | null;
    matching_command: number;
    signaling_channel: Channel | null;
  }[];
  matching_timeout: number;
}
export interface Msg {
  id: number;
  send_type: number;
  kind: string;
  message: string;
}

/**
 * The examinee side driven through its API plus a browser page that publishes fake camera and microphone as
 * the KVS MASTER (a minimal master speaking the KVS wire format, media-stack.md §1.4). Stands in for the
 * examinee pages until they exist (issue #3).
 */
export class ApiExaminee {
  token = '';
  testerId = 0;
  private page: Page | null = null;
  private polling = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly request: APIRequestContext,
    readonly loginId: string,
  ) {}

  private async call<T>(
    method: 'GET' | 'POST',
    endpoint: string,
    data?: Record<string, unknown>,
  ): Promise<T> {
    const url = `/api/v1/${endpoint}.php`;
    const headers = this.token ? { Authorization: `Bearer ${this.token}` } : undefined;
    const res =
      method === 'GET'
        ? await this.request.get(url, { headers, params: data as Record<string, string | number> })
        : await this.request.post(url, { headers, data: data ?? {} });
    const body = (await res.json()) as Envelope<T>;
    if (body.status !== 200) throw new Error(`${endpoint}: ${body.status} ${body.message}`);
    return body.result;
  }

  async login(): Promise<void> {
    const r = await this.call<{ access_token: string }>('POST', 'login', {
      login_id: this.loginId,
      password: 'demo-pass',
      url_key: 'demo-tester',
    });
    this.token = r.access_token;
  }

  poll(channelStatus?: 'open' | 'close'): Promise<PollResult> {
    return this.call<PollResult>('POST', 'matching', channelStatus ? { channel_status: channelStatus } : {});
  }

  /** Opens the MASTER in a page of `context` (fake media) and keeps polling with channel_status open. */
  async publish(context: BrowserContext, baseURL: string): Promise<void> {
    const first = await this.poll();
    const m = first.matchings[0];
    if (!m?.signaling_channel) throw new Error('no signaling channel for the examinee');
    this.testerId = m.tester_id;
    const ch = m.signaling_channel;
    const creds = {
      accessKeyId: ch.access_key_id,
      secretAccessKey: ch.secret_access_key,
      sessionToken: ch.session_token,
    };
    const kv = new KinesisVideoClient({
      region: ch.region,
      credentials: creds,
      ...(ch.endpoint ? { endpoint: ch.endpoint } : {}),
    });
    const arn = (await kv.send(new DescribeSignalingChannelCommand({ ChannelName: ch.channel_name })))
      .ChannelInfo!.ChannelARN!;
    const eps = await kv.send(
      new GetSignalingChannelEndpointCommand({
        ChannelARN: arn,
        SingleMasterChannelEndpointConfiguration: { Protocols: ['WSS', 'HTTPS'], Role: 'MASTER' },
      }),
    );
    const wss = eps.ResourceEndpointList!.find((e) => e.Protocol === 'WSS')!.ResourceEndpoint!;
    const signer = new SigV4RequestSigner(ch.region, creds);
    const insecure = wss.startsWith('ws://');
    const signed = await signer.getSignedURL(insecure ? 'wss://' + wss.slice(5) : wss, {
      'X-Amz-ChannelARN': arn,
    });
    const url = insecure ? 'ws://' + signed.slice(6) : signed;

    this.page = await context.newPage();
    await this.page.goto(`${baseURL}/config.json`);
    await this.page.evaluate(async (signedUrl: string) => {
      const stream = await navigator.mediaDevices.getUserMedia({
        video: { width: 320, height: 240 },
        audio: true,
      });
      const ws = new WebSocket(signedUrl);
      const pcs = new Map<string, { pc: RTCPeerConnection; queue: RTCIceCandidateInit[] }>();
      const send = (action: string, payload: unknown, to: string) =>
        ws.send(
          JSON.stringify({ action, messagePayload: btoa(JSON.stringify(payload)), recipientClientId: to }),
        );
      ws.onmessage = (ev) => {
        void (async () => {
          let msg: { messageType?: string; messagePayload?: string; senderClientId?: string };
          try {
            msg = JSON.parse(String(ev.data)) as typeof msg;
          } catch {
            return;
          }
          if (!msg.messagePayload || !msg.senderClientId) return;
          const from = msg.senderClientId;
          const payload = JSON.parse(atob(msg.messagePayload)) as RTCSessionDescriptionInit &
            RTCIceCandidateInit;
          if (msg.messageType === 'SDP_OFFER') {
            pcs.get(from)?.pc.close();
            const pc = new RTCPeerConnection({ iceServers: [] });
            const entry = { pc, queue: [] as RTCIceCandidateInit[] };
            pcs.set(from, entry);
            stream.getTracks().forEach((t) => pc.addTrack(t, stream));
            pc.onicecandidate = (e) => e.candidate && send('ICE_CANDIDATE', e.candidate, from);
            await pc.setRemoteDescription(payload);
            await pc.setLocalDescription(await pc.createAnswer());
            send('SDP_ANSWER', pc.localDescription, from);
            for (const c of entry.queue) await pc.addIceCandidate(c);
            entry.queue = [];
          } else if (msg.messageType === 'ICE_CANDIDATE') {
            const e = pcs.get(from);
            if (!e) return;
            if (e.pc.remoteDescription) await e.pc.addIceCandidate(payload);
            else e.queue.push(payload);
          }
        })();
      };
      await new Promise<void>((resolve, reject) => {
        ws.onopen = () => resolve();
        ws.onerror = () => reject(new Error('master socket failed'));
      });
    }, url);

    this.polling = true;
    this.loop = (async () => {
      while (this.polling) {
        await this.poll('open').catch(() => undefined);
        await new Promise((r) => setTimeout(r, 2000));
      }
    })();
  }

  /** The tester announces the identity check (AUTHENTICATING marker). */
  async authenticating(): Promise<void> {
    await this.call('POST', 'tester/status', { status: 2 }).catch(() => undefined);
    await this.post('AUTHENTICATING', 'command', 1);
  }

  post(message: string, kind: 'message' | 'command' = 'message', messageType = 3): Promise<unknown> {
    return this.call('POST', 'webrtc_message', {
      tester_id: this.testerId,
      send_type: 1,
      message_type: messageType,
      message,
      kind,
    });
  }

  async messages(): Promise<Msg[]> {
    return (await this.call<{ messages: Msg[] }>('GET', 'webrtc_message', { tester_id: this.testerId }))
      .messages;
  }

  /** BEFORE_CLOSE, then the window closes and polling stops. */
  async closeWindow(): Promise<void> {
    await this.post('BEFORE_CLOSE', 'command');
    await this.stop();
  }

  async stop(): Promise<void> {
    this.polling = false;
    await this.loop;
    await this.page?.close();
    this.page = null;
  }
}
