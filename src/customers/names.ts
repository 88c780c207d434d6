// What a customer is called where people read it: the company for a business, else the person's name.

/** An erased customer has neither: `erased` names it ("Erased customer" in the reader's language). */
export function customerTitle(customer: { name: string; companyName: string | null }, erased = '—'): string {
  return customer.companyName ?? (customer.name || erased);
}

export function typeLabel(type: 'person' | 'business'): string {
  return type === 'business' ? 'Business' : 'Person';
}
