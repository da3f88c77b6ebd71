/**
 * The DNS server's Prometheus metrics, with CoreDNS's names and labels
 * (plugin/metrics): coredns_dns_requests_total{server,zone,view,proto,family,type},
 * coredns_dns_responses_total{server,zone,view,rcode,plugin} and
 * coredns_dns_request_duration_seconds{server,zone,view,type}. `zone` is the
 * server block's zone, "." as in the kubeadm Corefile; `view` is empty.
 */
import { Counter, Histogram, type Registry } from 'prom-client';

export interface DnsMetrics {
  request(labels: { readonly proto: 'udp' | 'tcp'; readonly family: '1' | '2'; readonly type: string }): void;
  response(labels: { readonly rcode: string; readonly plugin: string; readonly type: string; readonly seconds: number }): void;
}

export function newDnsMetrics(registry: Registry, server: string): DnsMetrics {
  const requests = new Counter({
    name: 'coredns_dns_requests_total',
    help: 'Counter of DNS requests made per zone, protocol and family.',
    labelNames: ['server', 'zone', 'view', 'proto', 'family', 'type'],
    registers: [registry],
  });
  const responses = new Counter({
    name: 'coredns_dns_responses_total',
    help: 'Counter of response status codes.',
    labelNames: ['server', 'zone', 'view', 'rcode', 'plugin'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'coredns_dns_request_duration_seconds',
    help: 'Histogram of the time (in seconds) each request took per zone.',
    labelNames: ['server', 'zone', 'view', 'type'],
    buckets: [0.00025, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096, 8.192],
    registers: [registry],
  });
  const base = { server, zone: '.', view: '' };
  return {
    request: (l) => requests.inc({ ...base, proto: l.proto, family: l.family, type: l.type }),
    response: (l) => {
      responses.inc({ ...base, rcode: l.rcode, plugin: l.plugin });
      duration.observe({ ...base, type: l.type }, l.seconds);
    },
  };
}
