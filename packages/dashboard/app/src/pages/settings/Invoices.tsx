import { Anchor, Button, Card, Center, Loader, Table, Text, Title } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';

/** An amount in the smallest unit of `currency` (cents), in words. */
function money(amount: number, currency: string): string {
  const format = new Intl.NumberFormat(undefined, { style: 'currency', currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(amount / 10 ** digits);
}

/** The project's invoices from the payment provider (`billing-invoices`), newest first. */
export function Invoices() {
  const projectId = useProjectId();
  const invoices = useInfiniteQuery({
    queryKey: [projectId, 'billing-invoices'],
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/users/@me/projects/{id}/billing-invoices', {
          params: {
            path: { id: projectId },
            query: { limit: 20, ...(pageParam === undefined ? {} : { cursor: pageParam }) },
          },
        }),
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.cursor ?? undefined,
  });
  const items = invoices.data?.pages.flatMap((page) => page.invoices) ?? [];
  return (
    <Card withBorder component="section" aria-labelledby="invoices-title">
      <Title order={2} size="h4" mb="sm" id="invoices-title">
        Invoices
      </Title>
      {invoices.isPending && (
        <Center p="md">
          <Loader size="sm" aria-label="Loading the invoices" />
        </Center>
      )}
      <ErrorAlert error={invoices.error} title="The invoices are not available" />
      {invoices.isSuccess && items.length === 0 && (
        <Text size="sm" c="dimmed">
          No invoices yet: they appear here once the project subscribes to a plan.
        </Text>
      )}
      {items.length > 0 && (
        <Table.ScrollContainer minWidth={560}>
          <Table aria-label="Invoices">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Number</Table.Th>
                <Table.Th>Date</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Total</Table.Th>
                <Table.Th>Invoice</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((invoice, index) => (
                <Table.Tr key={invoice.id ?? `invoice-${index}`}>
                  <Table.Td>{invoice.number ?? '—'}</Table.Td>
                  <Table.Td>
                    {invoice.createdAt === null
                      ? '—'
                      : new Date(invoice.createdAt).toLocaleDateString()}
                  </Table.Td>
                  <Table.Td>{invoice.status ?? '—'}</Table.Td>
                  <Table.Td>{money(invoice.total, invoice.currency.toUpperCase())}</Table.Td>
                  <Table.Td>
                    {invoice.hostedInvoiceUrl === null ? (
                      '—'
                    ) : (
                      <Anchor href={invoice.hostedInvoiceUrl} target="_blank" rel="noreferrer">
                        View invoice {invoice.number ?? ''}
                      </Anchor>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {invoices.hasNextPage && (
        <Center mt="md">
          <Button
            variant="default"
            onClick={() => void invoices.fetchNextPage()}
            loading={invoices.isFetchingNextPage}
          >
            Load more
          </Button>
        </Center>
      )}
    </Card>
  );
}
