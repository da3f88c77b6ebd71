/** The pod every benchmark creates: a small, realistic object (about 1 KB of JSON). */
export function benchPod(name: string, namespace: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { app: 'bench', tier: 'web', 'pod-template-hash': '5d8f7c9b6d' } },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'registry.example/web:1.2.3',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [{ name: 'MODE', value: 'bench' }],
          resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } },
          readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 5 },
        },
      ],
      restartPolicy: 'Always',
    },
  };
}
